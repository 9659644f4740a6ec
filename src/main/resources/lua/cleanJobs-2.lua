--[[
  Removes jobs of one state that are older than a grace period, with all their keys, up to a limit per
  call, and appends one 'cleaned' queue event with the count.

  KEYS[1] the structure of that state: the completed or failed set (score: finish time, ms; the failed
          set also holds aborted jobs), the wait list, or the delayed or prioritized set (the wait lists and
          prioritized sets of the other tenants with jobs ready, named from the prefix, are cleaned after the
          queue's own: see fairShare)
  KEYS[2] queue event stream

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] state: 'completed' | 'failed' | 'waiting' | 'delayed' | 'prioritized'
  ARGV[3] grace (ms): only jobs that finished (completed, failed) or were added (others) at least this
          long ago are removed
  ARGV[4] most jobs to remove in this call
  ARGV[5] maximum length of the queue event stream (entries)

  Returns the ids of the removed jobs (call again while the list is as long as the limit). Delayed and
  prioritized sets are not ordered by age, so they are read through (a page of 1,000 at a time) until the
  limit is reached.
]]
--- @include "nowMs"
--- @include "fairShare"
--- @include "queueEvent"
--- @include "removeJobKeys"

local prefix, state = ARGV[1], ARGV[2]
local limit = tonumber(ARGV[4])
local before = nowMs() - tonumber(ARGV[3])
local removed = {}

local function oldEnough(id)
    local added = redis.call('HGET', prefix .. 'job:' .. id, 'timestamp')
    return added == false or tonumber(added) <= before
end

-- Oldest at the tail, but LIFO, stalled and handed-back jobs go there too: page from the tail towards the head past
-- younger jobs, then remove what was found.
local function cleanList(key)
    local seen, found = 0, {}
    repeat
        local page = redis.call('LRANGE', key, -(seen + 1000), -(seen + 1))
        for i = #page, 1, -1 do
            if #removed + #found < limit and oldEnough(page[i]) then
                found[#found + 1] = page[i]
            end
        end
        seen = seen + #page
    until #page < 1000 or #removed + #found >= limit
    for _, id in ipairs(found) do
        redis.call('LREM', key, -1, id)
        removeJobKeys(prefix, id)
        removed[#removed + 1] = id
    end
end

-- Ordered by due time or priority, not by age: page through the set past the younger jobs.
local function cleanSet(key)
    local kept = 0
    repeat
        local page = redis.call('ZRANGE', key, kept, kept + 999)
        for _, id in ipairs(page) do
            if #removed < limit and oldEnough(id) then
                redis.call('ZREM', key, id)
                removeJobKeys(prefix, id)
                removed[#removed + 1] = id
            else
                kept = kept + 1
            end
        end
    until #page == 0 or #removed >= limit
end

if state == 'completed' or state == 'failed' then
    removed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', before, 'LIMIT', 0, limit)
    for _, id in ipairs(removed) do
        redis.call('ZREM', KEYS[1], id)
        removeJobKeys(prefix, id)
    end
else
    local fromWait = state == 'waiting'
    local queueWait, queuePrioritized = prefix .. 'wait', prefix .. 'prioritized'
    local tenants = {FAIR_DEFAULT}
    if fromWait or state == 'prioritized' then
        for _, tenant in ipairs(otherReadyTenants(prefix)) do
            tenants[#tenants + 1] = tenant
        end
    end
    for _, tenant in ipairs(tenants) do
        if #removed >= limit then
            break
        end
        local waitKey, prioritizedKey = tenantReadyKeys(prefix, queueWait, queuePrioritized, tenant)
        if fromWait then
            cleanList(waitKey)
        else
            cleanSet(state == 'delayed' and KEYS[1] or prioritizedKey)
        end
        if state ~= 'delayed' then
            leaveReadyIfDrained(prefix, queueWait, queuePrioritized, tenant)
        end
    end
end
if #removed > 0 then
    queueEvent(KEYS[2], ARGV[5], 'cleaned', '', 'state', state, 'count', #removed)
end
return removed

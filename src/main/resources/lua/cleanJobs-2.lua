--[[
  Removes jobs of one state that are older than a grace period, with all their keys, up to a limit per
  call, and appends one 'cleaned' queue event with the count.

  KEYS[1] the structure of that state: the completed or failed set (score: finish time, ms; the failed
          set also holds aborted jobs), the wait list, or the delayed or prioritized set
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

if state == 'completed' or state == 'failed' then
    removed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', before, 'LIMIT', 0, limit)
    for _, id in ipairs(removed) do
        redis.call('ZREM', KEYS[1], id)
        removeJobKeys(prefix, id)
    end
elseif state == 'waiting' then
    -- Oldest at the tail, but LIFO, stalled and handed-back jobs go there too: page from the tail
    -- towards the head past younger jobs, then remove what was found.
    local seen = 0
    repeat
        local page = redis.call('LRANGE', KEYS[1], -(seen + 1000), -(seen + 1))
        for i = #page, 1, -1 do
            if #removed < limit and oldEnough(page[i]) then
                removed[#removed + 1] = page[i]
            end
        end
        seen = seen + #page
    until #page < 1000 or #removed >= limit
    for _, id in ipairs(removed) do
        redis.call('LREM', KEYS[1], -1, id)
        removeJobKeys(prefix, id)
    end
else
    -- Ordered by due time or priority, not by age: page through the set past the younger jobs.
    local kept = 0
    repeat
        local page = redis.call('ZRANGE', KEYS[1], kept, kept + 999)
        for _, id in ipairs(page) do
            if #removed < limit and oldEnough(id) then
                redis.call('ZREM', KEYS[1], id)
                removeJobKeys(prefix, id)
                removed[#removed + 1] = id
            else
                kept = kept + 1
            end
        end
    until #page == 0 or #removed >= limit
end
if #removed > 0 then
    queueEvent(KEYS[2], ARGV[5], 'cleaned', '', 'state', state, 'count', #removed)
end
return removed

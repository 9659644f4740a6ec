--[[
  Reads the jobs ready to run across the tenants of a queue (read only): the queue's own wait list and prioritized
  set hold those of tenant 'default', each other tenant with jobs ready has its own (see fairShare). Scans the
  tenants that have jobs ready, O(tenants): for the operator's views and the queue's gauges, not for dispatch.

  KEYS[1] wait list
  KEYS[2] prioritized set
  KEYS[3] the backlogged tenants (sorted set)

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] what to read: 'count' | 'waiting' | 'prioritized' | 'oldest' | 'tenant'
  ARGV[3] for 'waiting' and 'prioritized': index of the first job of the page (0 = the next to run of 'default',
          then the tenants' in the order of the backlogged set)
  ARGV[4] for 'waiting' and 'prioritized': index of the last job of the page (inclusive)
  ARGV[5] for 'tenant': the tenant

  Returns for 'count' {waiting, prioritized}: how many jobs each kind of structure holds; for 'waiting' and
  'prioritized' the ids of the page (the wait lists oldest first); for 'oldest' the Redis time (ms) since which the
  longest-waiting ready job has been ready (its 'timestamp' plus its 'delay'), or -1 when none is; for 'tenant'
  {ready, running}: the tenant's jobs ready to run (waiting and prioritized) and running (a scan of the active list,
  O(running jobs)).
]]
--- @include "fairShare"

local prefix, mode = ARGV[1], ARGV[2]

if mode == 'tenant' then
    local tenant = ARGV[5]
    local waitKey, prioritizedKey = tenantReadyKeys(prefix, KEYS[1], KEYS[2], tenant)
    local running = 0
    for _, id in ipairs(redis.call('LRANGE', prefix .. 'active', 0, -1)) do
        if (redis.call('HGET', prefix .. 'job:' .. id, 'tenant') or FAIR_DEFAULT) == tenant then
            running = running + 1
        end
    end
    return {redis.call('LLEN', waitKey) + redis.call('ZCARD', prioritizedKey), running}
end
local tenants = {FAIR_DEFAULT}
for _, tenant in ipairs(otherReadyTenants(prefix)) do
    tenants[#tenants + 1] = tenant
end

if mode == 'count' then
    local waiting, prioritized = 0, 0
    for _, tenant in ipairs(tenants) do
        local waitKey, prioritizedKey = tenantReadyKeys(prefix, KEYS[1], KEYS[2], tenant)
        waiting = waiting + redis.call('LLEN', waitKey)
        prioritized = prioritized + redis.call('ZCARD', prioritizedKey)
    end
    return {waiting, prioritized}
end

if mode == 'oldest' then
    local oldest = -1
    local function consider(id)
        if id then
            local fields = redis.call('HMGET', prefix .. 'job:' .. id, 'timestamp', 'delay')
            if fields[1] then
                local since = tonumber(fields[1]) + (tonumber(fields[2]) or 0)
                if oldest < 0 or since < oldest then
                    oldest = since
                end
            end
        end
    end
    for _, tenant in ipairs(tenants) do
        local waitKey, prioritizedKey = tenantReadyKeys(prefix, KEYS[1], KEYS[2], tenant)
        consider(redis.call('LINDEX', waitKey, -1))
        consider(redis.call('ZRANGE', prioritizedKey, 0, 0)[1])
    end
    return oldest
end

local first, last = tonumber(ARGV[3]), tonumber(ARGV[4])
local fromWait = mode == 'waiting'
local ids = {}
local offset = 0 -- the index of the first job of the tenant at hand
for _, tenant in ipairs(tenants) do
    if offset > last then
        break
    end
    local waitKey, prioritizedKey = tenantReadyKeys(prefix, KEYS[1], KEYS[2], tenant)
    local size = fromWait and redis.call('LLEN', waitKey) or redis.call('ZCARD', prioritizedKey)
    local from, to = math.max(first - offset, 0), math.min(last - offset, size - 1)
    if from <= to then
        if fromWait then
            local page = redis.call('LRANGE', waitKey, -1 - to, -1 - from)
            for i = #page, 1, -1 do
                ids[#ids + 1] = page[i]
            end
        else
            for _, id in ipairs(redis.call('ZRANGE', prioritizedKey, from, to)) do
                ids[#ids + 1] = id
            end
        end
    end
    offset = offset + size
end
return ids

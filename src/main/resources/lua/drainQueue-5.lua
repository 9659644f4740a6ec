--[[
  Drains a queue: removes the jobs that wait to run (wait list and prioritized set, and the delayed set
  when asked), with all their keys, up to a limit per call. Running jobs are not touched.

  KEYS[1] wait list
  KEYS[2] prioritized set
  KEYS[3] delayed set
  KEYS[4] marker set
  KEYS[5] queue event stream

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] '1' to also remove delayed jobs, '0' otherwise
  ARGV[3] most jobs to remove in this call
  ARGV[4] maximum length of the queue event stream (entries)

  Returns how many jobs were removed (call again until it returns 0).
]]
--- @include "fairShare"
--- @include "queueEvent"
--- @include "removeJobKeys"

local prefix = ARGV[1]
local limit = tonumber(ARGV[3])
local removed = 0
local function take(ids, removeFrom)
    for _, id in ipairs(ids) do
        removeFrom(id)
        removeJobKeys(prefix, id)
        removed = removed + 1
    end
end
-- Removes the ready jobs of one tenant (up to the limit), and takes it out of the backlogged ones once none is left.
local function drainReady(tenant)
    local waitKey, prioritizedKey = tenantReadyKeys(prefix, KEYS[1], KEYS[2], tenant)
    take(redis.call('LRANGE', waitKey, -(limit - removed), -1), function(id) redis.call('LREM', waitKey, 1, id) end)
    if removed < limit then
        take(redis.call('ZRANGE', prioritizedKey, 0, limit - removed - 1),
            function(id) redis.call('ZREM', prioritizedKey, id) end)
    end
    leaveReadyIfDrained(prefix, KEYS[1], KEYS[2], tenant)
end
drainReady(FAIR_DEFAULT)
for _, tenant in ipairs(otherReadyTenants(prefix)) do
    if removed >= limit then
        break
    end
    drainReady(tenant)
end
if ARGV[2] == '1' and removed < limit then
    take(redis.call('ZRANGE', KEYS[3], 0, limit - removed - 1), function(id) redis.call('ZREM', KEYS[3], id) end)
end
if not anyReady(prefix, KEYS[1], KEYS[2]) then
    redis.call('ZREM', KEYS[4], '0')
end
if removed > 0 then
    queueEvent(KEYS[5], ARGV[4], 'drained', '', 'count', removed)
end
return removed

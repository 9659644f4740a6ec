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
take(redis.call('LRANGE', KEYS[1], -limit, -1), function(id) redis.call('LREM', KEYS[1], 1, id) end)
if removed < limit then
    take(redis.call('ZRANGE', KEYS[2], 0, limit - removed - 1), function(id) redis.call('ZREM', KEYS[2], id) end)
end
if ARGV[2] == '1' and removed < limit then
    take(redis.call('ZRANGE', KEYS[3], 0, limit - removed - 1), function(id) redis.call('ZREM', KEYS[3], id) end)
end
if redis.call('LLEN', KEYS[1]) == 0 and redis.call('ZCARD', KEYS[2]) == 0 then
    redis.call('ZREM', KEYS[4], '0')
end
if removed > 0 then
    queueEvent(KEYS[5], ARGV[4], 'drained', '', 'count', removed)
end
return removed

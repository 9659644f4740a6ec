--[[
  Pauses a job scheduler (it produces nothing until resumed) or resumes it from its next tick after now.

  KEYS[1] schedulers hash
  KEYS[2] schedules set
  KEYS[3] the scheduler's state hash

  ARGV[1] scheduler id
  ARGV[2] '1' to pause, '0' to resume
  ARGV[3] when resuming, the next tick (ms since the epoch); -1 when it has none

  Returns 1 when done, 0 when there is no such scheduler.
]]
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
    return 0
end
if ARGV[2] == '1' then
    redis.call('ZREM', KEYS[2], ARGV[1])
    redis.call('HSET', KEYS[3], 'paused', '1')
else
    redis.call('HDEL', KEYS[3], 'paused')
    if tonumber(ARGV[3]) >= 0 then
        redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
    end
end
return 1

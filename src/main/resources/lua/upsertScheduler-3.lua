--[[
  Creates or changes a job scheduler in place (BullMQ's upsertJobScheduler): its spec, and its next tick unless it
  is paused. The jobs it produced before stay as they are; it never has a job produced ahead of its tick, so a
  change leaves no second pending job behind.

  KEYS[1] schedulers hash (scheduler id -> spec, JSON)
  KEYS[2] schedules set (scheduler id -> next tick, ms since the epoch)
  KEYS[3] the scheduler's state hash (ticks, lastJobId, lastTick, paused, ended, skipped)

  ARGV[1] scheduler id
  ARGV[2] spec (JSON)
  ARGV[3] next tick (ms since the epoch); -1 when it has none (past its end)

  Returns 1 when created, 0 when changed.
]]
local created = redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('HGET', KEYS[3], 'paused') ~= '1' then
    if tonumber(ARGV[3]) >= 0 then
        redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
        redis.call('HDEL', KEYS[3], 'ended')
    else
        redis.call('ZREM', KEYS[2], ARGV[1])
        redis.call('HSET', KEYS[3], 'ended', '1')
    end
end
return created

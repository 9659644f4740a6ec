--[[
  Removes a job scheduler: its spec, its next tick and its state. The jobs it produced stay.

  KEYS[1] schedulers hash
  KEYS[2] schedules set
  KEYS[3] the scheduler's state hash

  ARGV[1] scheduler id

  Returns 1 when removed, 0 when there was no such scheduler.
]]
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
return redis.call('HDEL', KEYS[1], ARGV[1])

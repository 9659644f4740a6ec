--[[
  Pauses or resumes a queue for the whole fleet: while paused no worker activates a job (active jobs go
  on); resuming wakes blocked workers when jobs are ready (any tenant's: see fairShare). Appends a 'paused' or
  'resumed' queue event.

  KEYS[1] meta hash
  KEYS[2] marker set
  KEYS[3] wait list
  KEYS[4] prioritized set
  KEYS[5] queue event stream

  ARGV[1] '1' to pause, '0' to resume
  ARGV[2] maximum length of the queue event stream (entries)

  Returns 1 when the queue changed state, 0 when it already was in that state.
]]
--- @include "fairShare"
--- @include "queueEvent"

local paused = redis.call('HEXISTS', KEYS[1], 'paused') == 1
if ARGV[1] == '1' then
    if paused then
        return 0
    end
    redis.call('HSET', KEYS[1], 'paused', 1)
    redis.call('ZREM', KEYS[2], '0')
    queueEvent(KEYS[5], ARGV[2], 'paused', '')
    return 1
end
if not paused then
    return 0
end
redis.call('HDEL', KEYS[1], 'paused')
if anyReady(string.sub(KEYS[1], 1, -5), KEYS[3], KEYS[4]) then
    redis.call('ZADD', KEYS[2], 0, '0')
end
queueEvent(KEYS[5], ARGV[2], 'resumed', '')
return 1

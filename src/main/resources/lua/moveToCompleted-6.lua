--[[
  Completes a job: a fenced write of its return value, its move from active to completed, and its
  'completed' event, in one atomic step. Only the owner of the current epoch can complete a job.

  KEYS[1] active list
  KEYS[2] completed set (score: finish time, ms)
  KEYS[3] job hash
  KEYS[4] job lock
  KEYS[5] job fencing token counter
  KEYS[6] job event stream

  ARGV[1] job id
  ARGV[2] lock token
  ARGV[3] fencing token
  ARGV[4] return value (JSON)
  ARGV[5] data of the 'completed' event (JSON; written only when the job keeps an event stream)
  ARGV[6] maximum stream length (entries)

  Returns 0 when completed, or -1 (no such job), -6 (lock held by another lock token),
  -7 (stale fencing token), -9 (not active: finished, aborted or handed back).
]]
--- @include "nowMs"
--- @include "checkOwnership"
--- @include "appendJobEvent"

local code = checkOwnership(KEYS[3], KEYS[4], KEYS[5], ARGV[2], ARGV[3])
if code ~= 0 then
    return code
end
local now = nowMs()
redis.call('LREM', KEYS[1], 1, ARGV[1])
redis.call('DEL', KEYS[4])
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('HSET', KEYS[3], 'state', 'completed', 'returnvalue', ARGV[4], 'finishedOn', now)
redis.call('HINCRBY', KEYS[3], 'attemptsMade', 1)
if redis.call('HGET', KEYS[3], 'events') == '1' then
    appendJobEvent(KEYS[6], ARGV[6], 'completed', ARGV[3], ARGV[5])
end
return 0

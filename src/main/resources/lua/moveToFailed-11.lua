--[[
  Ends an attempt that failed, in one atomic step and only for the owner of the current epoch: either
  schedules the next attempt (after a backoff delay computed by the worker) or fails the job for good,
  recording its reason and appending its 'failed' event.

  KEYS[1]  active list
  KEYS[2]  wait list
  KEYS[3]  delayed set
  KEYS[4]  prioritized set
  KEYS[5]  failed set (score: finish time, ms)
  KEYS[6]  marker set
  KEYS[7]  meta hash
  KEYS[8]  job hash
  KEYS[9]  job lock
  KEYS[10] job fencing token counter
  KEYS[11] job event stream

  ARGV[1] job id
  ARGV[2] lock token
  ARGV[3] fencing token
  ARGV[4] failure reason (text)
  ARGV[5] retry delay (ms); -1 ends the job as failed
  ARGV[6] maximum stream length (entries)
  ARGV[7] worker id

  Returns 1 when the job will be retried, 0 when it failed for good, or -1 (no such job),
  -6 (lock held by another lock token), -7 (stale fencing token), -9 (not active).
]]
--- @include "nowMs"
--- @include "checkOwnership"
--- @include "appendJobEvent"
--- @include "pushReady"
--- @include "scheduleDelayed"
--- @include "finishedPayload"

local jobId = ARGV[1]
local code = checkOwnership(KEYS[8], KEYS[9], KEYS[10], ARGV[2], ARGV[3])
if code ~= 0 then
    return code
end
local now = nowMs()
local retryDelay = tonumber(ARGV[5])
redis.call('LREM', KEYS[1], 1, jobId)
redis.call('DEL', KEYS[9])
redis.call('HINCRBY', KEYS[8], 'attemptsMade', 1)
redis.call('HSET', KEYS[8], 'failedReason', ARGV[4])

if retryDelay > 0 then
    redis.call('HSET', KEYS[8], 'state', 'delayed')
    scheduleDelayed(KEYS[3], KEYS[6], jobId, now + retryDelay)
    return 1
elseif retryDelay == 0 then
    local fields = redis.call('HMGET', KEYS[8], 'priority', 'lifo')
    local priority = tonumber(fields[1]) or 0
    redis.call('HSET', KEYS[8], 'state', priority > 0 and 'prioritized' or 'waiting')
    pushReady(KEYS[2], KEYS[4], KEYS[6], KEYS[7], jobId, priority, fields[2] == '1')
    return 1
end

redis.call('ZADD', KEYS[5], now, jobId)
redis.call('HSET', KEYS[8], 'state', 'failed', 'finishedOn', now)
if redis.call('HGET', KEYS[8], 'events') == '1' then
    appendJobEvent(KEYS[11], ARGV[6], 'failed', ARGV[3], finishedPayload('failed', ARGV[3], ARGV[4], ARGV[7]))
end
return 0

--[[
  Parks a running parent job until its children have ended (BullMQ's moveToWaitingChildren): fenced, so only
  the owner of the current epoch can. With pending dependencies the job leaves the active list for the
  waiting-children set without counting an attempt, and childEnded makes it ready again once the last child
  ended; its next run is a new epoch, which reads the children's results. Without any, it stays active and the
  run goes on. A child whose failure fails the parent (policy 'fail') and that ended while the parent ran left
  'failedChild', returned here for the run to fail with.

  KEYS[1] active list
  KEYS[2] job hash
  KEYS[3] job's dependencies set
  KEYS[4] waiting-children set (score: when the job began to wait, ms)
  KEYS[5] queue event stream
  KEYS[6] marker set
  KEYS[7] meta hash
  KEYS[8] wait list
  KEYS[9] prioritized set

  ARGV[1] job id
  ARGV[2] lock token
  ARGV[3] fencing token
  ARGV[4] maximum length of the queue event stream (entries)

  Returns {code, reason}: 1 parked, 0 no pending child (the job stays active), 2 a child failed the job (reason:
  why; the job stays active), or -1 (no such job), -7 (stale fencing token or attempt), -9 (not active).
]]
--- @include "nowMs"
--- @include "checkOwnership"
--- @include "fairShare"
--- @include "tenantLimits"
--- @include "queueEvent"

local jobId = ARGV[1]
local code = checkOwnership(KEYS[2], ARGV[2], ARGV[3])
if code ~= 0 then
    return {code, ''}
end
local failedChild = redis.call('HGET', KEYS[2], 'failedChild')
if failedChild then
    return {2, failedChild}
end
if redis.call('SCARD', KEYS[3]) == 0 then
    return {0, ''}
end
local now, nowText = nowMs()
redis.call('LREM', KEYS[1], 1, jobId)
local prefix = string.sub(KEYS[7], 1, -5)
settleSlotTime(prefix, KEYS[2], ARGV[3], now)
releaseRunning(prefix, KEYS[2])
flushEstimate(prefix)
redis.call('HINCRBY', KEYS[2], 'attemptsStarted', -1)
redis.call('HSET', KEYS[2], 'state', 'waiting-children')
redis.call('ZADD', KEYS[4], nowText, jobId)
queueEvent(KEYS[5], ARGV[4], 'waiting-children', jobId, 'prev', 'active')
-- A slot is free now: under a global concurrency cap, a blocked worker may take the next job.
if redis.call('HEXISTS', KEYS[7], 'paused') == 0
        and (hasReady(KEYS[8], KEYS[9]) or redis.call('ZCARD', prefix .. 'tenants:ready') > 0) then
    redis.call('ZADD', KEYS[6], 0, '0')
end
return {1, ''}

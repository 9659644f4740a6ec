--[[
  Aborts a job (an intended stop, never retried): a waiting or delayed job leaves the queue, a running
  job loses its lock and its worker is told through the revoked channel, so it closes its LLM call.
  A parent waiting for its children ('waiting-children') leaves that set; one with children that have not ended is
  recorded in 'parent-aborts' (its id -> the reason), and the service then aborts the children and removes the
  record (the flow sweep finishes what a crash cut short).
  A child leaves a notice for its parent (noteParent). Either way the job ends in state 'aborted' (kept in the failed set, where its removeOnFail retention
  applies at once) and its stream ends with one 'aborted' event carrying the current fencing token; later
  writes of any epoch are rejected.

  KEYS[1] wait list
  KEYS[2] active list
  KEYS[3] delayed set
  KEYS[4] prioritized set
  KEYS[5] failed set (score: finish time, ms)
  KEYS[6] job hash
  KEYS[7] job event stream
  KEYS[8] queue event stream
  KEYS[9] marker set
  KEYS[10] meta hash

  ARGV[1] job id
  ARGV[2] reason (text)
  ARGV[3] maximum stream length (entries)
  ARGV[4] revoked channel (message: '<jobId>:<fencingToken>')
  ARGV[5] key prefix of the queue, 'fq:{name}:' (of 'waiting-children' and 'parent-aborts'; the job's
          'dependencies' set is KEYS[6] .. ':dependencies': all in the queue's slot)
  ARGV[6] maximum length of the queue event stream (entries)

  Returns {code, state}: code 1 = aborted a running job, 2 = aborted a job that had not started or was
  waiting for its next attempt, -1 = no such job, -8 = the job had already finished; state is the
  job's state before the call ('' when there is no job).
]]
--- @include "nowMs"
--- @include "appendJobEvent"
--- @include "jobEventData"
--- @include "fairShare"
--- @include "tenantLimits"
--- @include "queueEvent"
--- @include "releaseDedup"
--- @include "applyRetention"
--- @include "noteParent"

local jobId = ARGV[1]
local job = redis.call('HMGET', KEYS[6], 'state', 'fencingToken', 'events', 'keepFailed', 'parentKey', 'parentPolicy',
    'tenant')
local state, token = job[1], job[2] or '0'
if not state then
    return {-1, ''}
end
if state == 'completed' or state == 'failed' or state == 'aborted' then
    return {-8, state}
end

local now = nowMs()
local code = 2
if state == 'active' then
    code = 1
    redis.call('LREM', KEYS[2], 1, jobId)
    settleSlotTime(ARGV[5], KEYS[6], token, now)
    releaseRunning(ARGV[5], KEYS[6])
    -- A slot is free now: under a global concurrency cap, a blocked worker may take the next job.
    if redis.call('HEXISTS', KEYS[10], 'paused') == 0 and anyReady(ARGV[5], KEYS[1], KEYS[4]) then
        redis.call('ZADD', KEYS[9], 0, '0')
    end
else
    removeReady(ARGV[5], KEYS[1], KEYS[4], job[7], jobId)
    redis.call('ZREM', KEYS[3], jobId)
    redis.call('ZREM', ARGV[5] .. 'waiting-children', jobId)
end
if redis.call('SCARD', KEYS[6] .. ':dependencies') > 0 then
    redis.call('HSET', ARGV[5] .. 'parent-aborts', jobId, ARGV[2])
end

redis.call('ZADD', KEYS[5], now, jobId)
redis.call('HSET', KEYS[6], 'state', 'aborted', 'failedReason', ARGV[2], 'finishedOn', now)
if job[3] == '1' then
    appendJobEvent(KEYS[7], ARGV[3], 'aborted', token, jobEventData(false, 'reason', cjson.encode(ARGV[2])))
end
queueEvent(KEYS[8], ARGV[6], 'aborted', jobId, 'failedReason', ARGV[2], 'prev', state)
releaseDedup(ARGV[5], KEYS[6], jobId)
noteParent(ARGV[5], jobId, job[5], job[6], 'aborted', ARGV[2])
if code == 1 then
    redis.call('PUBLISH', ARGV[4], jobId .. ':' .. token)
end
applyRetention(KEYS[5], ARGV[5], now, job[4], jobId)
flushEstimate(ARGV[5])
return {code, state}

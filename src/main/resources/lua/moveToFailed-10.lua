--[[
  Ends an attempt that failed and, in the same round trip, activates the worker's next jobs. Only for
  the owner of the current epoch: either schedules the next attempt (after a backoff delay computed by
  the worker: delayed set and marker, or straight back to wait) or fails the job for good, recording its
  reason, appending its 'failed' event, leaving a notice for its parent (noteParent) and applying its retention
  (removeOnFail); then activateJobs. The attempt's fair-dispatch charge is settled (fairShare's settleFailedAttempt:
  its slot time, or back to its tenant when it spent no tokens). A retried job records why its next run continues ('resumeReason' 'retry',
  which the resume event of that run says). A
  retried attempt yields the queue events 'failed' (with 'retry') and then 'delayed' (with 'delay', ms) or
  'waiting' (with 'prev' 'failed').

  KEYS[1]  active list
  KEYS[2]  wait list
  KEYS[3]  delayed set
  KEYS[4]  prioritized set
  KEYS[5]  failed set (score: finish time, ms)
  KEYS[6]  marker set
  KEYS[7]  meta hash
  KEYS[8]  job hash
  KEYS[9]  job event stream
  KEYS[10] queue event stream

  ARGV[1]  key prefix of the queue, 'fq:{name}:'
  ARGV[2]  job id
  ARGV[3]  lock token
  ARGV[4]  fencing token
  ARGV[5]  failure reason (text)
  ARGV[6]  retry delay (ms); -1 ends the job as failed
  ARGV[7]  maximum length of a job event stream (entries)
  ARGV[8]  maximum length of the queue event stream (entries)
  ARGV[9]  worker id
  ARGV[10] next jobs to activate for this worker (0 = none)
  ARGV[11] lock token prefix for those jobs
  ARGV[12] lock duration (ms)

  Returns {code, activationCode, now, extra, jobs...}: code 1 when the job will be retried, 0 when it
  failed for good, or -1 (no such job), -7 (stale fencing token or attempt), -9 (not active), in which case nothing
  changed; the rest as in moveToActive. Idempotent (include finishOnce): a repeat of a call that ended the attempt,
  with the same ARGV[11], returns the first reply (the activated jobs' fields as they are now) and changes nothing;
  its record (field ARGV[11] of '<prefix>finished:<second>') lives for at least ARGV[12] ms.
]]
--- @include "nowMs"
--- @include "checkOwnership"
--- @include "appendJobEvent"
--- @include "fairShare"
--- @include "tenantLimits"
--- @include "pushReady"
--- @include "scheduleDelayed"
--- @include "jobEventData"
--- @include "queueEvent"
--- @include "releaseDedup"
--- @include "applyRetention"
--- @include "activateJobs"
--- @include "finishOnce"
--- @include "noteParent"

local prefix, jobId = ARGV[1], ARGV[2]
local now, nowText, nowMicros = nowMs()
local code = checkOwnership(KEYS[8], ARGV[3], ARGV[4])
if code ~= 0 then
    -- Not the owner, or a repeat of this call, which ended the attempt (a repeat never finds the job its own).
    return repeatedFinish(prefix, ARGV[11], ARGV[12], now, nowMicros) or {code, 0, nowMicros, -1}
end
local retryDelay = tonumber(ARGV[6])
-- From the tail: activation pushes at the head, and jobs mostly end in the order they started.
redis.call('LREM', KEYS[1], '-1', jobId)
settleFailedAttempt(prefix, KEYS[8], ARGV[4], now)
releaseRunning(prefix, KEYS[8])
local attemptsMade = redis.call('HINCRBY', KEYS[8], 'attemptsMade', 1)
redis.call('HSET', KEYS[8], 'failedReason', ARGV[5])

if retryDelay > 0 then
    code = 1
    redis.call('HSET', KEYS[8], 'state', 'delayed', 'resumeReason', 'retry')
    scheduleDelayed(KEYS[3], KEYS[6], jobId, now + retryDelay)
    queueEvent(KEYS[10], ARGV[8], 'failed', jobId, 'failedReason', ARGV[5], 'attemptsMade', attemptsMade, 'retry', 'delayed')
    queueEvent(KEYS[10], ARGV[8], 'delayed', jobId, 'delay', ARGV[6])
elseif retryDelay == 0 then
    code = 1
    local fields = redis.call('HMGET', KEYS[8], 'priority', 'lifo')
    local priority = tonumber(fields[1]) or 0
    redis.call('HSET', KEYS[8], 'state', priority > 0 and 'prioritized' or 'waiting', 'resumeReason', 'retry')
    pushReady(KEYS[2], KEYS[4], KEYS[6], KEYS[7], jobId, priority, fields[2] == '1')
    queueEvent(KEYS[10], ARGV[8], 'failed', jobId, 'failedReason', ARGV[5], 'attemptsMade', attemptsMade, 'retry', 'waiting')
    queueEvent(KEYS[10], ARGV[8], 'waiting', jobId, 'prev', 'failed')
else
    code = 0
    redis.call('ZADD', KEYS[5], now, jobId)
    redis.call('HSET', KEYS[8], 'state', 'failed', 'finishedOn', now)
    local fields = redis.call('HMGET', KEYS[8], 'events', 'keepFailed', 'parentKey', 'parentPolicy')
    if fields[1] == '1' then
        appendJobEvent(KEYS[9], ARGV[7], 'failed', ARGV[4], jobEventData(cjson.encode(ARGV[9]), 'reason', cjson.encode(ARGV[5])))
    end
    queueEvent(KEYS[10], ARGV[8], 'failed', jobId, 'failedReason', ARGV[5], 'attemptsMade', attemptsMade)
    releaseDedup(prefix, KEYS[8], jobId)
    noteParent(prefix, jobId, fields[3], fields[4], 'failed', ARGV[5])
    applyRetention(KEYS[5], prefix, now, fields[2], jobId)
end

local activation, extra, jobs = activateJobs(KEYS[2], KEYS[1], KEYS[4], KEYS[3], KEYS[6], KEYS[7], KEYS[10],
    prefix, tonumber(ARGV[10]), ARGV[11], ARGV[12], ARGV[9], ARGV[7], ARGV[8], now, nowText)
return rememberFinish(prefix, ARGV[11], ARGV[12], now, activationReply({code}, activation, nowMicros, extra, jobs))

--[[
  Completes a job and, in the same round trip, activates the worker's next jobs: a fenced write of the
  return value, the move from active to completed, the 'completed' event, the job's retention
  (removeOnComplete), then activateJobs. Only the owner of the current epoch can complete a job.

  KEYS[1]  active list
  KEYS[2]  completed set (score: finish time, ms)
  KEYS[3]  job hash
  KEYS[4]  job lock
  KEYS[5]  job fencing token counter
  KEYS[6]  job event stream
  KEYS[7]  wait list
  KEYS[8]  prioritized set
  KEYS[9]  delayed set
  KEYS[10] marker set
  KEYS[11] meta hash
  KEYS[12] queue event stream

  ARGV[1]  key prefix of the queue, 'fq:{name}:'
  ARGV[2]  job id
  ARGV[3]  lock token
  ARGV[4]  fencing token
  ARGV[5]  return value (JSON)
  ARGV[6]  data of the 'completed' event (JSON; written only when the job keeps an event stream)
  ARGV[7]  maximum length of a job event stream (entries)
  ARGV[8]  maximum length of the queue event stream (entries)
  ARGV[9]  next jobs to activate for this worker (0 = none)
  ARGV[10] lock token prefix for those jobs
  ARGV[11] lock duration (ms)
  ARGV[12] worker id

  Returns {code, activationCode, now, extra, jobs...}: code 0 when completed, or -1 (no such job), -6
  (lock held by another lock token), -7 (stale fencing token), -9 (not active), in which case nothing
  changed and nothing was activated; the rest as in moveToActive.
]]
--- @include "nowMs"
--- @include "checkOwnership"
--- @include "appendJobEvent"
--- @include "pushReady"
--- @include "queueEvent"
--- @include "removeJobKeys"
--- @include "releaseDedup"
--- @include "applyRetention"
--- @include "activateJobs"

local prefix, jobId = ARGV[1], ARGV[2]
local now = nowMs()
local code = checkOwnership(KEYS[3], KEYS[4], KEYS[5], ARGV[3], ARGV[4])
if code ~= 0 then
    return {code, 0, now, -1}
end
redis.call('LREM', KEYS[1], 1, jobId)
redis.call('DEL', KEYS[4])
redis.call('ZADD', KEYS[2], now, jobId)
redis.call('HSET', KEYS[3], 'state', 'completed', 'returnvalue', ARGV[5], 'finishedOn', now)
local fields = redis.call('HMGET', KEYS[3], 'events', 'keepCompleted')
redis.call('HINCRBY', KEYS[3], 'attemptsMade', 1)
if fields[1] == '1' then
    appendJobEvent(KEYS[6], ARGV[7], 'completed', ARGV[4], ARGV[6])
end
queueEvent(KEYS[12], ARGV[8], 'completed', jobId, 'returnvalue', ARGV[5])
releaseDedup(prefix, KEYS[3], jobId)
applyRetention(KEYS[2], prefix, now, fields[2], jobId)

local activation, extra, jobs = activateJobs(KEYS[7], KEYS[1], KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[12],
    prefix, tonumber(ARGV[9]), ARGV[10], ARGV[11], ARGV[12], ARGV[7], ARGV[8], now)
local result = {0, activation, now, extra}
for i = 1, #jobs do
    result[#result + 1] = jobs[i]
end
return result

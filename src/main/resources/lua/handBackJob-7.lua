--[[
  Hands a running job back to the queue without counting an attempt: at once, by a worker that shuts down, so
  that another worker resumes the job in about a second instead of after lock duration plus stalled interval; or after
  a delay, by a run that cannot go on yet because a rate limit outside the queue is spent (BullMQ's RateLimitError with
  Worker.rateLimit: the LLM budget the fleet shares), so that it holds no worker slot meanwhile. Only the owner of the
  current epoch can hand a job back. Either way the job goes back to the front of its (tenant's) wait list, or back to
  the prioritized set, so that it keeps its place, also under fair dispatch; its next run is a new epoch, which
  continues the job as a takeover ('resumeReason' 'takeover', which its resume event says; 'rate-limited' after a
  delay). After a delay, the queue's dispatch is held for that long as well (meta 'holdUntil', ms on the Redis clock; a
  hold only grows; activateJobs answers rate-limited until it ends), so that no worker of the fleet takes the job, nor another, before the limit
  may admit one, and then the next job to run is the one fair dispatch chooses, not the one whose wait ended first.
  Under fair dispatch the job's tenant pays the slot time the run held (a queue charging slot time); in a queue
  charging LLM tokens, a run handed back at once is settled by the count of its tokens, and one handed back after a
  delay costs nothing (its call was refused before it opened). After a delay the pick is undone exactly (undoCharge):
  the tenant's usage goes back to the job's place, even below the virtual time.

  KEYS[1] active list
  KEYS[2] wait list
  KEYS[3] prioritized set
  KEYS[4] marker set
  KEYS[5] meta hash
  KEYS[6] job hash
  KEYS[7] queue event stream

  ARGV[1] job id
  ARGV[2] lock token
  ARGV[3] fencing token
  ARGV[4] maximum length of the queue event stream (entries)
  ARGV[5] how long the queue's dispatch is held, ms (0: not held, the job is taken again at once)

  Returns 0 when handed back, or -1 (no such job), -7 (stale fencing token or attempt), -9 (not active).
]]
--- @include "nowMs"
--- @include "checkOwnership"
--- @include "fairShare"
--- @include "tenantLimits"
--- @include "pushReady"
--- @include "queueEvent"

local jobId = ARGV[1]
local code = checkOwnership(KEYS[6], ARGV[2], ARGV[3])
if code ~= 0 then
    return code
end
redis.call('LREM', KEYS[1], 1, jobId)
local prefix = string.sub(KEYS[5], 1, -5)
local now = nowMs()
local delay = tonumber(ARGV[5]) or 0
if delay > 0 then
    undoCharge(prefix, KEYS[6], ARGV[3], now)
else
    settleSlotTime(prefix, KEYS[6], ARGV[3], now)
end
releaseRunning(prefix, KEYS[6])
flushEstimate(prefix)
redis.call('HINCRBY', KEYS[6], 'attemptsStarted', -1)
local priority = tonumber(redis.call('HGET', KEYS[6], 'priority')) or 0
redis.call('HSET', KEYS[6], 'state', priority > 0 and 'prioritized' or 'waiting', 'resumeReason',
    delay > 0 and 'rate-limited' or 'takeover')
pushReady(KEYS[2], KEYS[3], KEYS[4], KEYS[5], jobId, priority, true)
if delay > 0 and (tonumber(redis.call('HGET', KEYS[5], 'holdUntil')) or 0) < now + delay then
    redis.call('HSET', KEYS[5], 'holdUntil', string.format('%d', now + delay))
end
if redis.call('HEXISTS', KEYS[5], 'paused') == 1 then
    redis.call('ZREM', KEYS[4], '0')
end
if delay > 0 then
    queueEvent(KEYS[7], ARGV[4], 'waiting', jobId, 'prev', 'active', 'reason', 'rate limited', 'delay', ARGV[5])
else
    queueEvent(KEYS[7], ARGV[4], 'waiting', jobId, 'prev', 'active', 'reason', 'handed back')
end
return 0

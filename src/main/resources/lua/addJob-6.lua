--[[
  Adds a job to the queue, or returns the existing job for the same job id or idempotency key.

  KEYS[1] wait list
  KEYS[2] delayed set
  KEYS[3] prioritized set
  KEYS[4] marker set
  KEYS[5] meta hash
  KEYS[6] job id counter

  ARGV[1]  key prefix of the queue, 'fq:{name}:'
  ARGV[2]  job id; '' lets the queue generate one from the counter
  ARGV[3]  job name
  ARGV[4]  data (JSON)
  ARGV[5]  options (JSON, stored for readers)
  ARGV[6]  attempts (count, >= 1)
  ARGV[7]  delay (ms, 0 = none)
  ARGV[8]  priority (0 = none, lower runs first)
  ARGV[9]  lifo ('1' | '0')
  ARGV[10] keep a per-job event stream ('1' | '0')
  ARGV[11] idempotency key; '' for none
  ARGV[12] idempotency key time to live (ms)

  Returns {jobId, 1} when the job was added, {jobId, 0} when it already existed (same job id, or an
  idempotency key still within its time to live).
]]
--- @include "nowMs"
--- @include "pushReady"
--- @include "scheduleDelayed"

local prefix = ARGV[1]
local idempotencyKey = ARGV[11]
local idempotencyRef
if idempotencyKey ~= '' then
    idempotencyRef = prefix .. 'idempotency:' .. idempotencyKey
    local existing = redis.call('GET', idempotencyRef)
    if existing then
        return {existing, 0}
    end
end

local jobId = ARGV[2]
if jobId == '' then
    jobId = tostring(redis.call('INCR', KEYS[6]))
end
local jobKey = prefix .. 'job:' .. jobId
if redis.call('EXISTS', jobKey) == 1 then
    return {jobId, 0}
end

local now = nowMs()
local delay = tonumber(ARGV[7])
local priority = tonumber(ARGV[8])
redis.call('HSET', jobKey,
    'name', ARGV[3], 'data', ARGV[4], 'opts', ARGV[5], 'timestamp', now,
    'attempts', ARGV[6], 'attemptsMade', 0, 'attemptsStarted', 0, 'stalledCounter', 0,
    'delay', delay, 'priority', priority, 'lifo', ARGV[9], 'events', ARGV[10])
if idempotencyRef then
    redis.call('SET', idempotencyRef, jobId, 'PX', ARGV[12])
end

if delay > 0 then
    redis.call('HSET', jobKey, 'state', 'delayed')
    scheduleDelayed(KEYS[2], KEYS[4], jobId, now + delay)
else
    local paused = redis.call('HEXISTS', KEYS[5], 'paused') == 1
    redis.call('HSET', jobKey, 'state', priority > 0 and 'prioritized' or 'waiting')
    pushReady(KEYS[1], KEYS[3], KEYS[4], KEYS[5], jobId, priority, ARGV[9] == '1')
    if paused then
        redis.call('ZREM', KEYS[4], '0')
    end
end
return {jobId, 1}

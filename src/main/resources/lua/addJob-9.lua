--[[
  Adds a job to the queue, or returns the existing job for the same job id, idempotency key or
  deduplication id, and appends a 'waiting' (or 'delayed', 'waiting-children') queue event for a new job.
  Flows (BullMQ's parent and child jobs): a job added with a parent records the parent's job key and what its
  failure does to the parent; a job added with children starts in 'waiting-children', with every child key in
  its ':children' and ':dependencies' sets and each child's spec in the queue's pending-children hash, from
  which the service adds the children (in their own queues: FlowRelay) and to which it comes back after a crash.

  KEYS[1] wait list
  KEYS[2] delayed set
  KEYS[3] prioritized set
  KEYS[4] marker set
  KEYS[5] meta hash
  KEYS[6] job id counter
  KEYS[7] queue event stream
  KEYS[8] waiting-children set (score: when the job began to wait, ms)
  KEYS[9] pending-children hash (child job key -> the child's spec, JSON, until the child is added)

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
  ARGV[13] retention once completed, '<count>,<age ms>' (-1 = no limit); '' keeps the job
  ARGV[14] retention once failed, same form
  ARGV[15] deduplication id; '' for none
  ARGV[16] deduplication time to live (ms); 0 = until the job ends
  ARGV[17] timeout of one attempt (ms); 0 = none
  ARGV[18] maximum length of the queue event stream (entries)
  ARGV[19] parent's job key ('<prefix>job:<id>', maybe of another queue); '' for a job without a parent
  ARGV[20] what the job's failure does to its parent: 'fail' | 'ignore' | 'remove'
  ARGV[21...] two per child, for a parent added with its children: the child's job key, its spec (JSON)

  Returns {jobId, code}: 1 the job was added; 0 it already existed (same job id, or an idempotency key
  still within its time to live); 2 it was deduplicated (a job with the same deduplication id is live,
  and its id is returned).
]]
--- @include "nowMs"
--- @include "pushReady"
--- @include "scheduleDelayed"
--- @include "queueEvent"

local prefix = ARGV[1]
local idempotencyRef
if ARGV[11] ~= '' then
    idempotencyRef = prefix .. 'idempotency:' .. ARGV[11]
    local existing = redis.call('GET', idempotencyRef)
    if existing then
        return {existing, 0}
    end
end
local dedupRef
if ARGV[15] ~= '' then
    dedupRef = prefix .. 'dedup:' .. ARGV[15]
    local existing = redis.call('GET', dedupRef)
    if existing then
        return {existing, 2}
    end
end

local jobId = ARGV[2]
if jobId == '' then
    jobId = string.format('%d', redis.call('INCR', KEYS[6]))
end
local jobKey = prefix .. 'job:' .. jobId
if redis.call('EXISTS', jobKey) == 1 then
    return {jobId, 0}
end

local now, nowText = nowMs()
local delay = tonumber(ARGV[7])
local priority = tonumber(ARGV[8])
local parked = #ARGV > 20
local state = parked and 'waiting-children' or (delay > 0 and 'delayed' or (priority > 0 and 'prioritized' or 'waiting'))
-- One HSET; numbers are passed as the ARGV text they came in (Lua would format them again). Fields at their default
-- (0, or '0' for the flags) are left out, as every reader takes an absent field for its default: a smaller hash
-- costs less to read, write and delete on every job.
local fields = {'name', ARGV[3], 'data', ARGV[4], 'opts', ARGV[5], 'timestamp', nowText, 'attempts', ARGV[6],
    'state', state}
local optional = {'delay', ARGV[7], 'priority', ARGV[8], 'lifo', ARGV[9], 'events', ARGV[10], 'timeout', ARGV[17]}
for i = 1, #optional, 2 do
    if optional[i + 1] ~= '0' then
        fields[#fields + 1] = optional[i]
        fields[#fields + 1] = optional[i + 1]
    end
end
if ARGV[19] ~= '' then
    fields[#fields + 1] = 'parentKey'
    fields[#fields + 1] = ARGV[19]
    if ARGV[20] ~= 'fail' then
        fields[#fields + 1] = 'parentPolicy'
        fields[#fields + 1] = ARGV[20]
    end
end
if parked then
    fields[#fields + 1] = 'hasChildren'
    fields[#fields + 1] = '1'
end
if ARGV[13] ~= '' then
    fields[#fields + 1] = 'keepCompleted'
    fields[#fields + 1] = ARGV[13]
end
if ARGV[14] ~= '' then
    fields[#fields + 1] = 'keepFailed'
    fields[#fields + 1] = ARGV[14]
end
if dedupRef then
    fields[#fields + 1] = 'dedupId'
    fields[#fields + 1] = ARGV[15]
    fields[#fields + 1] = 'dedupTtl'
    fields[#fields + 1] = ARGV[16]
end
redis.call('HSET', jobKey, unpack(fields))
if idempotencyRef then
    redis.call('SET', idempotencyRef, jobId, 'PX', ARGV[12])
end
if dedupRef then
    if tonumber(ARGV[16]) > 0 then
        redis.call('SET', dedupRef, jobId, 'PX', ARGV[16])
    else
        redis.call('SET', dedupRef, jobId)
    end
end

if parked then
    local children, dependencies = jobKey .. ':children', jobKey .. ':dependencies'
    for i = 21, #ARGV, 2 do
        redis.call('SADD', children, ARGV[i])
        redis.call('SADD', dependencies, ARGV[i])
        redis.call('HSET', KEYS[9], ARGV[i], ARGV[i + 1])
    end
    redis.call('ZADD', KEYS[8], nowText, jobId)
    queueEvent(KEYS[7], ARGV[18], 'waiting-children', jobId)
elseif delay > 0 then
    scheduleDelayed(KEYS[2], KEYS[4], jobId, now + delay)
    queueEvent(KEYS[7], ARGV[18], 'delayed', jobId, 'delay', ARGV[7])
else
    pushReady(KEYS[1], KEYS[3], KEYS[4], KEYS[5], jobId, priority, ARGV[9] == '1')
    if redis.call('HEXISTS', KEYS[5], 'paused') == 1 then
        redis.call('ZREM', KEYS[4], '0')
    end
    queueEvent(KEYS[7], ARGV[18], 'waiting', jobId)
end
return {jobId, 1}

--[[
  Activates the next job for a worker, in one atomic step: promotes delayed jobs that are due, takes the
  next ready job (wait list first, then the prioritized set), locks it, increments its fencing token
  (a new epoch) and, when the job keeps an event stream, appends its 'started' event.

  KEYS[1] wait list
  KEYS[2] active list
  KEYS[3] prioritized set
  KEYS[4] delayed set
  KEYS[5] marker set
  KEYS[6] meta hash

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] lock token (opaque, unique per activation)
  ARGV[3] lock duration (ms)
  ARGV[4] worker id
  ARGV[5] maximum length of a job event stream (entries)

  Returns
    {1, jobId, fencingToken, now, field1, value1, ...}  a job was activated; the job hash follows
    {0, nextDue, now}                                     no job is ready; nextDue is the due time (ms) of
                                                          the earliest delayed job, or -1 when none
    {-4, -1, now}                                         the queue is paused
  now is the Redis clock (ms since the epoch).
]]
--- @include "nowMs"
--- @include "pushReady"
--- @include "appendJobEvent"

local prefix = ARGV[1]
local now = nowMs()

-- Promote delayed jobs that are due (bounded per call; the marker brings the rest).
local due = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 1000)
for _, id in ipairs(due) do
    redis.call('ZREM', KEYS[4], id)
    local jobKey = prefix .. 'job:' .. id
    local fields = redis.call('HMGET', jobKey, 'priority', 'lifo')
    if fields[1] then
        local priority = tonumber(fields[1])
        redis.call('HSET', jobKey, 'state', priority > 0 and 'prioritized' or 'waiting')
        pushReady(KEYS[1], KEYS[3], KEYS[5], KEYS[6], id, priority, fields[2] == '1')
    end
end

if redis.call('HEXISTS', KEYS[6], 'paused') == 1 then
    redis.call('ZREM', KEYS[5], '0')
    return {-4, -1, now}
end

local jobId
local jobKey
repeat
    jobId = redis.call('RPOPLPUSH', KEYS[1], KEYS[2])
    if not jobId then
        local popped = redis.call('ZPOPMIN', KEYS[3])
        if popped[1] then
            jobId = popped[1]
            redis.call('LPUSH', KEYS[2], jobId)
        end
    end
    if not jobId then
        local nextDue = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
        if nextDue[2] then
            redis.call('ZADD', KEYS[5], 'LT', nextDue[2], 'delayed')
            return {0, tonumber(nextDue[2]), now}
        end
        return {0, -1, now}
    end
    jobKey = prefix .. 'job:' .. jobId
    if redis.call('EXISTS', jobKey) == 0 then
        -- Removed while it waited: drop the dangling id and look again.
        redis.call('LREM', KEYS[2], 1, jobId)
        jobKey = nil
    end
until jobKey

local jobRef = prefix .. 'job:' .. jobId
redis.call('SET', jobRef .. ':lock', ARGV[2], 'PX', ARGV[3])
local token = redis.call('INCR', jobRef .. ':fence')
local attempt = redis.call('HINCRBY', jobKey, 'attemptsStarted', 1)
redis.call('HSET', jobKey, 'state', 'active', 'processedOn', now, 'workerId', ARGV[4])
redis.call('HDEL', jobKey, 'progress')

if redis.call('HGET', jobKey, 'events') == '1' then
    appendJobEvent(jobRef .. ':events', ARGV[5], 'started', token,
        '{"status":"started","fencingToken":' .. token .. ',"workerId":' .. cjson.encode(ARGV[4])
            .. ',"attempt":' .. attempt .. '}')
end

if redis.call('LLEN', KEYS[1]) > 0 or redis.call('ZCARD', KEYS[3]) > 0 then
    redis.call('ZADD', KEYS[5], 0, '0')
end

local result = {1, jobId, token, now}
local hash = redis.call('HGETALL', jobKey)
for i = 1, #hash do
    result[#result + 1] = hash[i]
end
return result

-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Activates up to maxJobs ready jobs for one worker: promotes delayed jobs that are due, honours the
-- queue's pause flag, global rate limit (meta 'limiterMax' jobs per 'limiterDuration' ms) and global
-- concurrency (meta 'concurrency'), then for each job takes it from the wait list (or the prioritized
-- set), sets its lock (lockPrefix .. ':' .. jobId, PX lockDuration) and records that lock token in the job
-- hash ('lockToken': the identity of the attempt, which every fenced write compares), hands it the next
-- fencing token (a new epoch, see nextFencingToken), appends its 'started' event (when it keeps an event
-- stream) and an 'active' queue event. Sets the marker again when jobs are left, so that another blocked
-- worker wakes up (and removes it when none is left). maxJobs may be 0: nothing is activated, the marker
-- is still set. now/nowText: the Redis clock (ms) as a number and as text.
-- Returns code, extra, jobs:
--   code  1  jobs is a flat list {jobId, fencingToken, lockToken, fields, ...}, 4 entries per job; fields
--            holds the job's fields after activation, in the order of JOB_FIELDS (false = absent), so
--            that the worker reads the job without a second command; extra = due time (ms) of the
--            earliest delayed job when fewer than maxJobs jobs were ready (so the worker can time its
--            next look), else -1
--   code  0  nothing ready; extra = due time (ms) of the earliest delayed job, or -1
--   code -4  the queue is paused
--   code -5  rate limited; extra = ms until the window resets
--   code -10 the global concurrency is reached
-- Needs the includes pushReady, appendJobEvent and queueEvent.

-- The job fields an activation returns, in this order (Activation.FIELDS in Java reads them back). The
-- first four are also what activation itself needs to know.
local JOB_FIELDS = {'state', 'attemptsStarted', 'events', 'progress', 'name', 'data', 'opts', 'attempts',
    'attemptsMade', 'stalledCounter', 'timestamp', 'priority', 'delay', 'timeout', 'failedReason',
    'processedOn', 'workerId'}

-- The next fencing token of a job (Kleppmann, "How to do distributed locking", 2016): the larger of the stored
-- token + 1 and the Redis clock in ms, stored back. The counter alone repeats a token when Redis loses the write
-- that handed it out (a crash between fsyncs, a restart from an older snapshot, a failover to a lagging replica:
-- redis/redis#6062), and a run still alive under that token would then pass the fence. The clock makes any later
-- activation greater than every token handed out before the loss, as long as the clock of the Redis that hands it
-- out does not run behind the lost one's by more than the time the loss took to happen; within one millisecond the
-- counter keeps tokens strictly increasing. Returns the token as a number and as decimal text.
local function nextFencingToken(fenceKey, now)
    local token = math.max(tonumber(redis.call('GET', fenceKey) or '0') + 1, now)
    local text = string.format('%d', token)
    redis.call('SET', fenceKey, text)
    return token, text
end

local function activateJobs(waitKey, activeKey, prioritizedKey, delayedKey, markerKey, metaKey, eventsKey,
        prefix, maxJobs, lockPrefix, lockDuration, workerId, maxStreamLength, maxEvents, now, nowText)
    local due = redis.call('ZRANGEBYSCORE', delayedKey, '-inf', nowText, 'LIMIT', '0', '1000')
    for _, id in ipairs(due) do
        redis.call('ZREM', delayedKey, id)
        local jobKey = prefix .. 'job:' .. id
        local fields = redis.call('HMGET', jobKey, 'priority', 'lifo')
        if fields[1] then
            local priority = tonumber(fields[1])
            redis.call('HSET', jobKey, 'state', priority > 0 and 'prioritized' or 'waiting')
            pushReady(waitKey, prioritizedKey, markerKey, metaKey, id, priority, fields[2] == '1')
            queueEvent(eventsKey, maxEvents, 'waiting', id, 'prev', 'delayed')
        end
    end

    local meta = redis.call('HMGET', metaKey, 'paused', 'concurrency', 'limiterMax', 'limiterDuration')
    if meta[1] then
        redis.call('ZREM', markerKey, '0')
        return -4, -1, {}
    end
    -- With maxJobs 0 (a finishing worker that takes no more jobs) nothing is activated, but the marker
    -- is still set below, so that a slot it freed under the global concurrency wakes another worker.
    local jobs = {}
    local concurrency = tonumber(meta[2])
    local limiterMax = tonumber(meta[3])
    local limiterKey = prefix .. 'limiter'
    local code, extra = 0, -1
    local count = 0
    while count < maxJobs do
        if concurrency and redis.call('LLEN', activeKey) >= concurrency then
            code = -10
            break
        end
        if limiterMax then
            local started = tonumber(redis.call('GET', limiterKey) or '0')
            if started >= limiterMax then
                code, extra = -5, math.max(redis.call('PTTL', limiterKey), 0)
                break
            end
        end
        local jobId = redis.call('RPOPLPUSH', waitKey, activeKey)
        if not jobId then
            local popped = redis.call('ZPOPMIN', prioritizedKey)
            if popped[1] then
                jobId = popped[1]
                redis.call('LPUSH', activeKey, jobId)
            end
        end
        if not jobId then
            break
        end
        local jobKey = prefix .. 'job:' .. jobId
        local fields = redis.call('HMGET', jobKey, unpack(JOB_FIELDS))
        if not fields[1] then
            redis.call('LREM', activeKey, 1, jobId) -- removed while it waited
        else
            if limiterMax and redis.call('INCR', limiterKey) == 1 then
                redis.call('PEXPIRE', limiterKey, meta[4] or '1000')
            end
            count = count + 1
            local lockToken = lockPrefix .. ':' .. jobId
            redis.call('SET', jobKey .. ':lock', lockToken, 'PX', lockDuration)
            local token, tokenText = nextFencingToken(jobKey .. ':fence', now)
            local attempt = (tonumber(fields[2]) or 0) + 1
            redis.call('HSET', jobKey, 'state', 'active', 'processedOn', nowText, 'workerId', workerId,
                'attemptsStarted', attempt, 'lockToken', lockToken)
            if fields[4] then
                redis.call('HDEL', jobKey, 'progress')
            end
            if fields[3] == '1' then
                appendJobEvent(jobKey .. ':events', maxStreamLength, 'started', tokenText,
                    '{"status":"started","fencingToken":' .. tokenText .. ',"workerId":' .. cjson.encode(workerId)
                        .. ',"attempt":' .. attempt .. '}')
            end
            queueEvent(eventsKey, maxEvents, 'active', jobId, 'prev', fields[1], 'workerId', workerId)
            fields[1], fields[2], fields[4], fields[16], fields[17] = 'active', attempt, false, nowText, workerId
            jobs[#jobs + 1] = jobId
            jobs[#jobs + 1] = token
            jobs[#jobs + 1] = lockToken
            jobs[#jobs + 1] = fields
        end
    end
    if count > 0 then
        code = 1
    end
    if code == 0 or (code == 1 and count < maxJobs) then
        local nextDue = redis.call('ZRANGE', delayedKey, '0', '0', 'WITHSCORES')
        if nextDue[2] then
            extra = tonumber(nextDue[2])
            if code == 0 then
                redis.call('ZADD', markerKey, 'LT', nextDue[2], 'delayed')
            end
        end
    end
    if redis.call('LLEN', waitKey) == 0 and redis.call('ZCARD', prioritizedKey) == 0 then
        redis.call('ZREM', markerKey, '0') -- a stale marker would only wake a worker for nothing
    elseif code ~= -10 and code ~= -5 then
        redis.call('ZADD', markerKey, '0', '0')
    end
    return code, extra, jobs
end

-- Builds a script's reply: the values in head, then the activation as Activation.parse reads it: code,
-- the Redis clock (µs), extra, then the 4 entries of each job.
local function activationReply(head, code, nowMicros, extra, jobs)
    local reply = head
    reply[#reply + 1] = code
    reply[#reply + 1] = nowMicros
    reply[#reply + 1] = extra
    for i = 1, #jobs do
        reply[#reply + 1] = jobs[i]
    end
    return reply
end

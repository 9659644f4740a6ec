-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Activates up to maxJobs ready jobs for one worker: promotes delayed jobs that are due, honours the
-- queue's pause flag, its dispatch hold (meta 'holdUntil', handBackJob), global rate limit (meta 'limiterMax' jobs per 'limiterDuration' ms) and global
-- concurrency (meta 'concurrency'), then takes that many jobs at once (wait list first, then the prioritized
-- set: one LMPOP, one ZPOPMIN, one LPUSH onto the active list) and for each one writes in its hash its lock (its
-- lock token 'lockToken', lockPrefix .. ':' .. jobId, the identity of the attempt, which every fenced write
-- compares, held until 'lockedUntil' = now + lockDuration, ms on the Redis clock) and the next fencing token
-- ('fencingToken': a new epoch, see nextFencingToken), appends its 'started' event (when it keeps an event stream)
-- and an 'active' queue event. A job that keeps an event stream also records its run's worker as 'worker:<token>', which
-- readers put back into the run's answer deltas (StoredEvent in Java).
-- Sets the marker again when jobs may be left, so that another blocked worker wakes up (and removes it when none is
-- left). maxJobs may be 0: nothing is activated, the marker is still set. now/nowText: the Redis clock (ms) as a
-- number and as text.
-- Returns code, extra, jobs:
--   code  1  jobs is a flat list {jobId, fencingToken, fields, ...}, 3 entries per job: the fencing token as decimal
--            text, and fields the job hash after activation as HGETALL gives it (a flat list of names and values,
--            which Activation.parse in Java reads), except that 'progress' is nil (activation clears it). One HGETALL
--            reads a small hash (a listpack) in one pass, where an HMGET of each field the worker may need would scan
--            it once per field. The worker takes what it knows itself (the state, processedOn, workerId, the lock
--            token lockPrefix .. ':' .. jobId) from what it sent, not from these fields. extra = due time (ms) of
--            the earliest delayed job when fewer than maxJobs jobs were activated (so the worker can time its next
--            look), else -1
--   code  0  nothing ready; extra = due time (ms) of the earliest delayed job, or -1
--   code -4  the queue is paused
--   code -5  rate limited; extra = ms until the window resets
--   code -10 the global concurrency is reached
--
-- Among a job's fields: 'checkpoint' is the last state a run committed (JobContext.checkpoint), for the next run to
-- resume from; 'resumePoint' the id of the last event the job's stream held when the current run was activated;
-- 'parentKey' the job key of a flow's child's parent, so that the worker delivers the child's ending to it at once;
-- 'schedulerId' and 'tick' the job scheduler tick that produced the job; 'traceparent' the span that added the job,
-- which the attempt's span continues (one trace per job); 'resumeReason' why the job was last sent back to wait,
-- written by the script that did so ('takeover': the stalled check or a worker's hand-back; 'retry': a failed
-- attempt's retry, an operator's retry or resume; 'children': a parent whose children ended), which a run that
-- continues the job's events says in its resume event.
--- @include "fairShare"
--- @include "pushReady"
--- @include "takeReady"
--- @include "appendJobEvent"
--- @include "jobEventData"
--- @include "queueEvent"

-- Reads a job hash for activation: returns its fields as HGETALL gives them (an empty list when the job is gone),
-- whether it has its 'timestamp' (which every job has: a job without one is gone), the positions of the values
-- activation rewrites ('fencingToken', 'attemptsStarted', 'progress', 'resumePoint'; nil when absent) and the value of
-- 'events' (nil when absent).
local function readJob(jobKey)
    local all = redis.call('HGETALL', jobKey)
    local stamped, tokenAt, attemptAt, progressAt, resumeAt, events = false
    for i = 1, #all, 2 do
        local name = all[i]
        if name == 'timestamp' then
            stamped = true
        elseif name == 'fencingToken' then
            tokenAt = i + 1
        elseif name == 'attemptsStarted' then
            attemptAt = i + 1
        elseif name == 'events' then
            events = all[i + 1]
        elseif name == 'progress' then
            progressAt = i + 1
        elseif name == 'resumePoint' then
            resumeAt = i + 1
        end
    end
    return all, stamped, tokenAt, attemptAt, progressAt, resumeAt, events
end

-- Sets a field of a list readJob returned: at its position, or appended when the list had none.
local function setField(all, at, name, value)
    if at then
        all[at] = value
    else
        all[#all + 1] = name
        all[#all + 1] = value
    end
end

-- The next fencing token of a job (Kleppmann, "How to do distributed locking", 2016): the larger of the stored
-- token + 1 and the Redis clock in ms. The counter alone repeats a token when Redis loses the write that handed it
-- out (a crash between fsyncs, a restart from an older snapshot, a failover to a lagging replica: redis/redis#6062),
-- and a run still alive under that token would then pass the fence. The clock makes any later activation greater
-- than every token handed out before the loss, as long as the clock of the Redis that hands it out does not run
-- behind the lost one's by more than the time the loss took to happen; within one millisecond the counter keeps
-- tokens strictly increasing. stored: the hash's 'fencingToken' (false when absent). Returns the token as a number
-- and as decimal text.
-- nowText is now as text, the token's text whenever the clock wins (most activations), which saves formatting it.
local function nextFencingToken(stored, now, nowText)
    local token = (tonumber(stored) or 0) + 1
    if token <= now then
        return now, nowText
    end
    return token, string.format('%d', token)
end

-- The text of small attempt numbers, so that most activations format no number.
local ATTEMPT_TEXT = {'1', '2', '3', '4', '5', '6', '7', '8', '9', '10'}

local function activateJobs(waitKey, activeKey, prioritizedKey, delayedKey, markerKey, metaKey, eventsKey,
        prefix, maxJobs, lockPrefix, lockDuration, workerId, maxStreamLength, maxEvents, now, nowText)
    local due = redis.call('ZRANGEBYSCORE', delayedKey, '-inf', nowText, 'LIMIT', '0', '1000')
    for _, id in ipairs(due) do
        redis.call('ZREM', delayedKey, id)
        local jobKey = prefix .. 'job:' .. id
        local fields = redis.call('HMGET', jobKey, 'timestamp', 'priority', 'lifo', 'tenant', 'dueFront')
        if fields[1] then
            local priority = tonumber(fields[2]) or 0
            redis.call('HSET', jobKey, 'state', priority > 0 and 'prioritized' or 'waiting')
            if fields[5] then
                -- handed back after a rate limit by a version before the queue's hold: it keeps its place
                redis.call('HDEL', jobKey, 'dueFront')
            end
            pushReady(waitKey, prioritizedKey, markerKey, metaKey, id, priority, fields[3] == '1' or fields[5] == '1',
                fields[4])
            queueEvent(eventsKey, maxEvents, 'waiting', id, 'prev', 'delayed')
        end
    end

    local meta = redis.call('HMGET', metaKey, 'paused', 'concurrency', 'limiterMax', 'limiterDuration', 'costUnit',
        'costEstimate', 'virtualTime', 'holdUntil')
    local virtualTime = tonumber(meta[7]) or 0
    fairClock.now = fairClock.now or virtualTime
    local estimate, estimated = settledEstimate(prefix, meta[6])
    local startTag = virtualTime
    if meta[1] then
        if estimated then
            redis.call('HSET', metaKey, 'costEstimate', string.format('%.3f', estimate))
        end
        redis.call('ZREM', markerKey, '0')
        return -4, -1, {}
    end
    -- With maxJobs 0 (a finishing worker that takes no more jobs) nothing is activated, but the marker
    -- is still set below, so that a slot it freed under the global concurrency wakes another worker.
    local jobs = {}
    local code, extra = 0, -1
    local allowed = maxJobs
    local concurrency = tonumber(meta[2])
    if concurrency and allowed > 0 then
        local free = concurrency - redis.call('LLEN', activeKey)
        if free <= 0 then
            code = -10
        end
        allowed = math.min(allowed, free)
    end
    local held = allowed > 0 and (tonumber(meta[8]) or 0) - now or 0
    if held > 0 then -- a run met a rate limit outside the queue (handBackJob): no job starts before it may pass
        code, extra, allowed = -5, held, 0
    end
    local limiterMax = tonumber(meta[3])
    local limiterKey = prefix .. 'limiter'
    if limiterMax and allowed > 0 then
        local started = tonumber(redis.call('GET', limiterKey) or '0')
        if started >= limiterMax then
            code, extra = -5, math.max(redis.call('PTTL', limiterKey), 0)
        end
        allowed = math.min(allowed, limiterMax - started)
    end
    local count = 0
    local drained -- whether nothing is ready any more; nil when not known
    local rateWake -- when the earliest rate window of a tenant held at its rate limit ends, ms; nil for none
    if allowed > 0 then
        local ids, states, charges, counted
        ids, states, drained, charges, startTag, counted, rateWake = takeReady(prefix, waitKey, activeKey,
            prioritizedKey, allowed, estimate, meta[5], virtualTime, now)
        local chargedField = meta[5] == 'tokens' and 'chargedTokens:' or 'chargedMs:'
        local charged = {} -- the job hash's fair-dispatch fields: its charge, and whether it counts against a limit
        local quotedWorkerId
        local lockedUntil = string.format('%d', now + tonumber(lockDuration))
        for i = 1, #ids do
            local jobId = ids[i]
            local jobKey = prefix .. 'job:' .. jobId
            local fields, stamped, tokenAt, attemptAt, progressAt, resumeAt, events = readJob(jobKey)
            if not stamped then
                redis.call('LREM', activeKey, 1, jobId) -- removed while it waited
            else
                count = count + 1
                local lockToken = lockPrefix .. ':' .. jobId
                local _, tokenText = nextFencingToken(tokenAt and fields[tokenAt], now, nowText)
                local attemptNumber = (tonumber(attemptAt and fields[attemptAt]) or 0) + 1
                local attempt = ATTEMPT_TEXT[attemptNumber] or tostring(attemptNumber)
                if charges then
                    charged = {chargedField .. tokenText, charges[i]}
                    if counted[i] then
                        charged[3], charged[4] = 'runningCounted', '1'
                    end
                end
                if events == '1' then
                    -- The resume point: every event the stream holds passed the fence of its run, so they are a
                    -- consistent prefix that the new run may continue (stored as '' when the stream is empty).
                    local last = redis.call('XREVRANGE', jobKey .. ':events', '+', '-', 'COUNT', '1')[1]
                    local resumePoint = last and last[1] or ''
                    setField(fields, resumeAt, 'resumePoint', resumePoint)
                    redis.call('HSET', jobKey, 'state', 'active', 'processedOn', nowText, 'workerId', workerId,
                        'attemptsStarted', attempt, 'lockToken', lockToken, 'lockedUntil', lockedUntil, 'fencingToken',
                        tokenText, 'resumePoint', resumePoint, 'worker:' .. tokenText, workerId, unpack(charged))
                else
                    redis.call('HSET', jobKey, 'state', 'active', 'processedOn', nowText, 'workerId', workerId,
                        'attemptsStarted', attempt, 'lockToken', lockToken, 'lockedUntil', lockedUntil, 'fencingToken',
                        tokenText, unpack(charged))
                end
                if progressAt then
                    redis.call('HDEL', jobKey, 'progress')
                    fields[progressAt] = false
                end
                if events == '1' then
                    quotedWorkerId = quotedWorkerId or cjson.encode(workerId)
                    appendJobEvent(jobKey .. ':events', maxStreamLength, 'started', tokenText,
                        jobEventData(quotedWorkerId, 'attempt', attempt))
                end
                queueEvent(eventsKey, maxEvents, 'active', jobId, 'prev', states[i],
                    'workerId', workerId)
                setField(fields, tokenAt, 'fencingToken', tokenText)
                setField(fields, attemptAt, 'attemptsStarted', attempt)
                jobs[#jobs + 1] = jobId
                jobs[#jobs + 1] = tokenText
                jobs[#jobs + 1] = fields
            end
        end
        if limiterMax and count > 0 and redis.call('INCRBY', limiterKey, count) == count then
            redis.call('PEXPIRE', limiterKey, meta[4] or '1000')
        end
    end
    if estimated or startTag > virtualTime then
        redis.call('HSET', metaKey, 'costEstimate', string.format('%.3f', estimate), 'virtualTime', startTag)
    end
    if count > 0 then
        code, extra = 1, -1
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
    if rateWake then
        -- A tenant waits for its rate window: a worker looks again when it ends (the delayed jobs' marker).
        redis.call('ZADD', markerKey, 'LT', string.format('%d', rateWake), 'delayed')
        if code == 0 or (code == 1 and count < maxJobs) then
            extra = extra < 0 and rateWake or math.min(extra, rateWake)
        end
    end
    if drained == nil then
        -- Under fair dispatch (where this is not known) the backlogged tenants are mostly left: looked at first.
        drained = redis.call('ZCARD', prefix .. 'tenants:ready') == 0 and redis.call('LLEN', waitKey) == 0
            and redis.call('ZCARD', prioritizedKey) == 0
    end
    -- When exactly as many jobs as asked for were ready, the marker is set though none may be left: a stale marker
    -- only wakes a worker for nothing (its activation finds nothing and removes the marker).
    if drained then
        redis.call('ZREM', markerKey, '0')
    elseif code ~= -10 and code ~= -5 then
        redis.call('ZADD', markerKey, '0', '0')
    end
    return code, extra, jobs
end

-- Builds a script's reply: the values in head, then the activation as Activation.parse reads it: code,
-- the Redis clock (µs), extra, then the 3 entries of each job.
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

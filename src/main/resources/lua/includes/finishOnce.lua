-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes the key prefix, the call's id
-- (its lock token prefix, ARGV of the caller) and the record's time to live (ms).
-- Returns: repeatedFinish the earlier reply of the call, rebuilt, or nil when there was none; rememberFinish the
-- reply it was given, after recording it.
-- Finishing calls (moveToCompleted, moveToFailed) are idempotent. A worker retries a finishing write whose reply it
-- did not get (a timeout, a cut connection); if the first call ran, the retry must not see "not active" (and log that
-- a newer run owns the job) while the jobs the first call activated for the worker sit locked by nobody. So a call
-- that finished something leaves a record under its lock token prefix (unique per call), for the lock duration (the
-- longest a worker retries): its outcome, and the id and fencing token of each job it activated (their lock tokens
-- are the call's id, ':' and the job id). A repeat of the call gets the same reply, with the Redis clock of the repeat
-- and the activated jobs' fields read as they are now.
-- Needs the include activateJobs (JOB_FIELDS).

local function finishRecordKey(prefix, callId)
    return prefix .. 'finished:' .. callId
end

-- Returns the reply of an earlier run of this call, or nil when there was none. nowMicros: the Redis clock, µs.
local function repeatedFinish(prefix, callId, nowMicros)
    local stored = redis.call('GET', finishRecordKey(prefix, callId))
    if not stored then
        return nil
    end
    local record = cmsgpack.unpack(stored)
    local reply = {record[1], record[2], nowMicros, record[3]}
    for i = 4, #record, 2 do
        reply[#reply + 1] = record[i]
        reply[#reply + 1] = record[i + 1]
        reply[#reply + 1] = redis.call('HMGET', prefix .. 'job:' .. record[i], unpack(JOB_FIELDS))
    end
    return reply
end

-- Records a reply ({outcome, activationCode, nowMicros, extra, then id, fencing token, fields per activated job};
-- outcome a code, or a list of codes) for ttlMs and returns it. msgpack keeps its integers exact and costs no
-- number formatting.
local function rememberFinish(prefix, callId, ttlMs, reply)
    local record = {reply[1], reply[2], reply[4]}
    for i = 5, #reply, 3 do
        record[#record + 1] = reply[i]
        record[#record + 1] = reply[i + 1]
    end
    redis.call('SET', finishRecordKey(prefix, callId), cmsgpack.pack(record), 'PX', ttlMs)
    return reply
end

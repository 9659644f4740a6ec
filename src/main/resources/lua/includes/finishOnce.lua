-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes the key prefix, the call's id
-- (its lock token prefix, ARGV of the caller), the record's time to live (ms) and the Redis clock (ms).
-- Returns: repeatedFinish the earlier reply of the call, rebuilt, or nil when there was none; rememberFinish the
-- reply it was given, after recording it.
-- Finishing calls (moveToCompleted, moveToFailed) are idempotent. A worker retries a finishing write whose reply it
-- did not get (a timeout, a cut connection); if the first call ran, the retry must not see "not active" (and log that
-- a newer run owns the job) while the jobs the first call activated for the worker sit locked by nobody. So a call
-- that finished something leaves a record under its lock token prefix (unique per call), for at least the lock
-- duration (the longest a worker retries): its outcome, and the id and fencing token of each job it activated (their
-- lock tokens are the call's id, ':' and the job id). A repeat of the call gets the same reply, with the Redis clock of
-- the repeat and the activated jobs' fields read as they are now. A repeat finds none of its jobs its own any more (the
-- first run finished them), so a caller looks for the record only when it could finish none, not on every call.
-- The records of one second of the Redis clock share a hash, '<prefix>finished:<second>' (field: the call's id), that
-- expires ttl ms after that second ends: a key of its own per call, each with its expiry, would keep tens of thousands
-- of keys in Redis's table of expiring keys on a busy queue, which every key lookup of every command then searches.
-- A repeat looks in the hashes of the seconds a record of its call can be in (ttl ms back).
--- @include "activateJobs"

local FINISH_SLICE_MS = 1000

-- The text of the codes a finishing call returns, so that recording them formats no number.
local FINISH_CODE_TEXT = {[0] = '0', [1] = '1', [-1] = '-1', [-7] = '-7', [-9] = '-9'}

-- Returns the reply of an earlier run of this call, or nil when there was none. ttlMs: the record's time to live as
-- the call gave it; now, nowMicros: the Redis clock, ms and µs.
local function repeatedFinish(prefix, callId, ttlMs, now, nowMicros)
    local stored
    local slice = math.floor(now / FINISH_SLICE_MS)
    for back = 0, math.ceil(tonumber(ttlMs) / FINISH_SLICE_MS) do
        stored = redis.call('HGET', prefix .. 'finished:' .. string.format('%d', slice - back), callId)
        if stored then
            break
        end
    end
    if not stored then
        return nil
    end
    local parts = {}
    for part in string.gmatch(stored, '[^,]+') do
        parts[#parts + 1] = part
    end
    local head = parts[1]
    if string.sub(head, 1, 1) == 'L' then -- one code per job
        local codes = {}
        for code in string.gmatch(string.sub(head, 2), '[^ ]+') do
            codes[#codes + 1] = tonumber(code)
        end
        head = codes
    else
        head = tonumber(head)
    end
    local reply = {head, tonumber(parts[2]), nowMicros, tonumber(parts[3])}
    for i = 4, #parts, 2 do
        reply[#reply + 1] = parts[i]
        reply[#reply + 1] = parts[i + 1]
        reply[#reply + 1] = (readJob(prefix .. 'job:' .. parts[i]))
    end
    return reply
end

-- Records a reply ({outcome, activationCode, nowMicros, extra, then id, fencing token, fields per activated job};
-- outcome a code, or a list of codes) for at least ttlMs and returns it: as one line of text, built from the texts the
-- call already holds (the codes from FINISH_CODE_TEXT, each job's token as text), which costs less than packing the
-- numbers. now: the Redis clock, ms.
local function rememberFinish(prefix, callId, ttlMs, now, reply)
    local head = reply[1]
    if type(head) == 'table' then
        local codes = {}
        for i = 1, #head do
            codes[i] = FINISH_CODE_TEXT[head[i]] or tostring(head[i])
        end
        head = 'L' .. table.concat(codes, ' ')
    else
        head = FINISH_CODE_TEXT[head] or tostring(head)
    end
    local parts = {head, FINISH_CODE_TEXT[reply[2]] or tostring(reply[2]), tostring(reply[4])}
    for i = 5, #reply, 3 do
        parts[#parts + 1] = reply[i]
        parts[#parts + 1] = reply[i + 1] -- the token, as text
    end
    local slice = math.floor(now / FINISH_SLICE_MS)
    local key = prefix .. 'finished:' .. string.format('%d', slice)
    redis.call('HSET', key, callId, table.concat(parts, ','))
    redis.call('PEXPIREAT', key, string.format('%d', (slice + 1) * FINISH_SLICE_MS + tonumber(ttlMs)))
    return reply
end

-- Include (inlined by `--- @include`): the whole of addJob, for the scripts that add a job among other writes
-- (addJob itself, produceTick). K: the KEYS of addJob, A: its ARGV (see addJob-9.lua for both), as Lua tables.
-- Returns what addJob returns.
--- @include "nowMs"
--- @include "pushReady"
--- @include "scheduleDelayed"
--- @include "queueEvent"
local function addJobCore(K, A)
    local prefix = A[1]
    local idempotencyRef, fingerprint
    if A[11] ~= '' then
        -- The key holds '<jobId> <fingerprint>': the same key with another request is refused, not answered with the
        -- earlier job. A key written by an older version holds the job id alone, and matches any request.
        idempotencyRef = prefix .. 'idempotency:' .. A[11]
        fingerprint = redis.sha1hex(A[3] .. '\n' .. A[4])
        local existing = redis.call('GET', idempotencyRef)
        if existing then
            local existingId, stored = string.match(existing, '^(%S+) (%x+)$')
            if not existingId then
                return {existing, 0}
            end
            return {existingId, stored == fingerprint and 0 or -15}
        end
    end
    local dedupRef
    if A[15] ~= '' then
        dedupRef = prefix .. 'dedup:' .. A[15]
        local existing = redis.call('GET', dedupRef)
        if existing then
            return {existing, 2}
        end
    end

    local jobId = A[2]
    if jobId == '' then
        jobId = string.format('%d', redis.call('INCR', K[6]))
    end
    local jobKey = prefix .. 'job:' .. jobId
    if redis.call('EXISTS', jobKey) == 1 then
        return {jobId, 0}
    end

    local now, nowText = nowMs()
    local delay = tonumber(A[7])
    local priority = tonumber(A[8])
    local parked = #A > 24
    local state = parked and 'waiting-children' or (delay > 0 and 'delayed' or (priority > 0 and 'prioritized' or 'waiting'))
    -- One HSET; numbers are passed as the ARGV text they came in (Lua would format them again). Fields at their default
    -- (0, or '0' for the flags) are left out, as every reader takes an absent field for its default: a smaller hash
    -- costs less to read, write and delete on every job.
    local fields = {'name', A[3], 'data', A[4], 'opts', A[5], 'timestamp', nowText, 'attempts', A[6],
        'state', state}
    local optional = {'delay', A[7], 'priority', A[8], 'lifo', A[9], 'events', A[10], 'timeout', A[17]}
    for i = 1, #optional, 2 do
        if optional[i + 1] ~= '0' then
            fields[#fields + 1] = optional[i]
            fields[#fields + 1] = optional[i + 1]
        end
    end
    if A[19] ~= '' then
        fields[#fields + 1] = 'parentKey'
        fields[#fields + 1] = A[19]
        if A[20] ~= 'fail' then
            fields[#fields + 1] = 'parentPolicy'
            fields[#fields + 1] = A[20]
        end
    end
    if A[21] ~= '' then
        fields[#fields + 1] = 'schedulerId'
        fields[#fields + 1] = A[21]
        fields[#fields + 1] = 'tick'
        fields[#fields + 1] = A[22]
    end
    if A[23] ~= '' then
        fields[#fields + 1] = 'traceparent'
        fields[#fields + 1] = A[23]
    end
    if A[24] ~= '' then
        fields[#fields + 1] = 'tenant'
        fields[#fields + 1] = A[24]
    end
    if parked then
        fields[#fields + 1] = 'hasChildren'
        fields[#fields + 1] = '1'
    end
    if A[13] ~= '' then
        fields[#fields + 1] = 'keepCompleted'
        fields[#fields + 1] = A[13]
    end
    if A[14] ~= '' then
        fields[#fields + 1] = 'keepFailed'
        fields[#fields + 1] = A[14]
    end
    if dedupRef then
        fields[#fields + 1] = 'dedupId'
        fields[#fields + 1] = A[15]
        fields[#fields + 1] = 'dedupTtl'
        fields[#fields + 1] = A[16]
    end
    redis.call('HSET', jobKey, unpack(fields))
    if idempotencyRef then
        redis.call('SET', idempotencyRef, jobId .. ' ' .. fingerprint, 'PX', A[12])
    end
    if dedupRef then
        if tonumber(A[16]) > 0 then
            redis.call('SET', dedupRef, jobId, 'PX', A[16])
        else
            redis.call('SET', dedupRef, jobId)
        end
    end

    if parked then
        local children, dependencies = jobKey .. ':children', jobKey .. ':dependencies'
        for i = 25, #A, 2 do
            redis.call('SADD', children, A[i])
            redis.call('SADD', dependencies, A[i])
            redis.call('HSET', K[9], A[i], A[i + 1])
        end
        redis.call('ZADD', K[8], nowText, jobId)
        queueEvent(K[7], A[18], 'waiting-children', jobId)
    elseif delay > 0 then
        scheduleDelayed(K[2], K[4], jobId, now + delay)
        queueEvent(K[7], A[18], 'delayed', jobId, 'delay', A[7])
    else
        pushReady(K[1], K[3], K[4], K[5], jobId, priority, A[9] == '1', A[24] ~= '' and A[24])
        if redis.call('HEXISTS', K[5], 'paused') == 1 then
            redis.call('ZREM', K[4], '0')
        end
        queueEvent(K[7], A[18], 'waiting', jobId)
    end
    return {jobId, 1}
end

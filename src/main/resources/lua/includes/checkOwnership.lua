-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Checks that a writer still owns an active job: the job exists, the writer's fencing token is the
-- current one and so is its attempt (the lock token recorded in the job hash at activation, 'lockToken'),
-- the job is active, and its lock (if it still exists) carries the writer's lock token. The attempt check
-- rejects a run whose activation Redis no longer knows even if its token were handed out again.
-- Returns 0 when it does, else -1 (no such job), -7 (stale fencing token or attempt), -9 (not active),
-- -6 (lock held by another lock token). checkOwnershipOf takes the job's 'state' and 'lockToken' fields
-- already read (false when absent: no job, or a job activated before attempts were recorded), for scripts
-- that read them together with other fields.
local function checkOwnershipOf(state, attempt, lockKey, fenceKey, lockToken, token)
    if not state then
        return -1
    end
    if redis.call('GET', fenceKey) ~= token or (attempt and attempt ~= lockToken) then
        return -7
    end
    if state ~= 'active' then
        return -9
    end
    local holder = redis.call('GET', lockKey)
    if holder and holder ~= lockToken then
        return -6
    end
    return 0
end

local function checkOwnership(jobKey, lockKey, fenceKey, lockToken, token)
    local fields = redis.call('HMGET', jobKey, 'state', 'lockToken')
    return checkOwnershipOf(fields[1], fields[2], lockKey, fenceKey, lockToken, token)
end

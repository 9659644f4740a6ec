-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Checks that a writer still owns an active job: the job exists, the writer's fencing token is the job's current one
-- (the hash's 'fencingToken') and so is its attempt (the lock token recorded in the hash at activation, 'lockToken'),
-- and the job is active. The attempt check rejects a run whose activation Redis no longer knows even if its token
-- were handed out again. Whether the lock is still held ('lockedUntil') is not the writer's concern: an active job
-- whose lock expired is still the writer's until the stalled-job check hands it to a new epoch.
-- Returns 0 when it does, else -1 (no such job), -7 (stale fencing token or attempt), -9 (not active).
-- checkOwnershipOf takes the job's 'state', 'lockToken' and 'fencingToken' fields already read (false when absent),
-- for scripts that read them together with other fields.
local function checkOwnershipOf(state, attempt, current, lockToken, token)
    if not state then
        return -1
    end
    if current ~= token or attempt ~= lockToken then
        return -7
    end
    if state ~= 'active' then
        return -9
    end
    return 0
end

local function checkOwnership(jobKey, lockToken, token)
    local fields = redis.call('HMGET', jobKey, 'state', 'lockToken', 'fencingToken')
    return checkOwnershipOf(fields[1], fields[2], fields[3], lockToken, token)
end

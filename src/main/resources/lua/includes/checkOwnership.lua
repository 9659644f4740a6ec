-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Checks that a writer still owns an active job: the job exists, the writer's fencing token is the
-- current one, the job is active, and its lock (if it still exists) carries the writer's lock token.
-- Returns 0 when it does, else -1 (no such job), -7 (stale fencing token), -9 (not active),
-- -6 (lock held by another lock token). checkOwnershipOf takes the job's 'state' field already read
-- (false when the job does not exist), for scripts that read it together with other fields.
local function checkOwnershipOf(state, lockKey, fenceKey, lockToken, token)
    if not state then
        return -1
    end
    if redis.call('GET', fenceKey) ~= token then
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
    return checkOwnershipOf(redis.call('HGET', jobKey, 'state'), lockKey, fenceKey, lockToken, token)
end

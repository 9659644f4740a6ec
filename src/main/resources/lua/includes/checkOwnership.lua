-- Checks that a writer still owns an active job: the job exists, the writer's fencing token is the
-- current one, the job is active, and its lock (if it still exists) carries the writer's lock token.
-- Returns 0 when it does, else -1 (no such job), -7 (stale fencing token), -9 (not active),
-- -6 (lock held by another lock token).
local function checkOwnership(jobKey, lockKey, fenceKey, lockToken, token)
    local state = redis.call('HGET', jobKey, 'state')
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

-- Applies a finished job's retention to its finished set (score: finish time, ms). keep is the job's
-- '<count>,<age ms>' (its removeOnComplete or removeOnFail; absent = keep all): jobs older than the age
-- and, beyond the newest count, the oldest ones are removed with all their keys. -1 disables a limit;
-- count 0 removes only the job that just finished (jobId), as BullMQ's 'true' does, so that jobs kept by
-- their own options stay. At most 1,000 jobs per limit and call, so a script never runs long; the next
-- finishing job removes the rest. Returns how many jobs were removed.
--- @include "removeJobKeys"
local function applyRetention(setKey, prefix, now, keep, jobId)
    if not keep then
        return 0
    end
    local comma = string.find(keep, ',', 1, true)
    local keepCount = tonumber(string.sub(keep, 1, comma - 1))
    local keepAge = tonumber(string.sub(keep, comma + 1))
    local removed = 0
    if keepAge >= 0 then
        local old = redis.call('ZRANGEBYSCORE', setKey, '-inf', now - keepAge, 'LIMIT', '0', '1000')
        for _, id in ipairs(old) do
            removeJobKeys(prefix, id)
            redis.call('ZREM', setKey, id)
        end
        removed = removed + #old
    end
    if keepCount == 0 then
        if redis.call('ZREM', setKey, jobId) == 1 then
            removeJobKeys(prefix, jobId)
            removed = removed + 1
        end
    elseif keepCount > 0 then
        local excess = redis.call('ZCARD', setKey) - keepCount
        if excess > 0 then
            local ids = redis.call('ZRANGE', setKey, '0', math.min(excess, 1000) - 1)
            for _, id in ipairs(ids) do
                removeJobKeys(prefix, id)
            end
            redis.call('ZREMRANGEBYRANK', setKey, '0', #ids - 1)
            removed = removed + #ids
        end
    end
    return removed
end

-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Puts a job into the delayed set with its due time as score and lowers the delayed marker to that due
-- time if it is the earliest, so that one blocked worker wakes up and times the promotion.
-- dueMs: due time in ms since the epoch (Redis clock).
local function scheduleDelayed(delayedKey, markerKey, jobId, dueMs)
    local due = string.format('%d', dueMs)
    redis.call('ZADD', delayedKey, due, jobId)
    redis.call('ZADD', markerKey, 'LT', due, 'delayed')
end

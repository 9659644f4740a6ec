-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Moves a job out of the failed set back to the wait list (or the prioritized set) with a fresh count of
-- attempts, as a retry or a resume does; its next run is a new epoch, which continues the job as a retry
-- ('resumeReason' 'retry', which the resume event of that run says). A paused queue keeps it waiting.
--- @include "pushReady"
local function requeueJob(failedKey, waitKey, prioritizedKey, markerKey, metaKey, jobKey, jobId)
    redis.call('ZREM', failedKey, jobId)
    redis.call('HSET', jobKey, 'attemptsMade', 0, 'stalledCounter', 0)
    redis.call('HDEL', jobKey, 'finishedOn', 'failedReason')
    local priority = tonumber(redis.call('HGET', jobKey, 'priority')) or 0
    redis.call('HSET', jobKey, 'state', priority > 0 and 'prioritized' or 'waiting', 'resumeReason', 'retry')
    pushReady(waitKey, prioritizedKey, markerKey, metaKey, jobId, priority, false)
    if redis.call('HEXISTS', metaKey, 'paused') == 1 then
        redis.call('ZREM', markerKey, '0')
    end
end

-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Makes a job ready to run: appends it to the wait list (or, when it has a priority, to the prioritized
-- set, ordered by priority then insertion) and sets the "jobs ready" marker that wakes blocked workers.
-- waitKey, prioritizedKey, markerKey, metaKey: key names; priority: 0 = none, lower runs first;
-- lifo: true puts the job at the front of the wait list.
local function pushReady(waitKey, prioritizedKey, markerKey, metaKey, jobId, priority, lifo)
    if priority > 0 then
        local counter = redis.call('HINCRBY', metaKey, 'priorityCounter', 1)
        redis.call('ZADD', prioritizedKey, priority * 4294967296 + (counter % 4294967296), jobId)
    elseif lifo then
        redis.call('RPUSH', waitKey, jobId)
    else
        redis.call('LPUSH', waitKey, jobId)
    end
    redis.call('ZADD', markerKey, '0', '0')
end

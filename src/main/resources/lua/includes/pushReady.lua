-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Makes a job ready to run: appends it to its tenant's wait list (or, when it has a priority, to its tenant's
-- prioritized set, ordered by priority then insertion), puts the tenant among the backlogged ones of fair dispatch
-- when more than one tenant has jobs ready (fairShare; not while it is held at its concurrency limit), and sets the
-- "jobs ready" marker that wakes blocked workers.
-- waitKey, prioritizedKey, markerKey, metaKey: the queue's key names (the wait list and prioritized set of tenant
-- 'default'); priority: 0 = none, lower runs first; lifo: true puts the job at the front of the wait list;
-- tenant: the job's tenant, nil to read it from the job hash (false when it has none: 'default').
--- @include "fairShare"
local function pushReady(waitKey, prioritizedKey, markerKey, metaKey, jobId, priority, lifo, tenant)
    local prefix = string.sub(metaKey, 1, -5)
    if tenant == nil then
        tenant = redis.call('HGET', prefix .. 'job:' .. jobId, 'tenant')
    end
    tenant = tenant or FAIR_DEFAULT
    local tenantWait, tenantPrioritized = tenantReadyKeys(prefix, waitKey, prioritizedKey, tenant)
    if priority > 0 then
        local counter = redis.call('HINCRBY', metaKey, 'priorityCounter', 1)
        redis.call('ZADD', tenantPrioritized, priority * 4294967296 + (counter % 4294967296), jobId)
    elseif lifo then
        redis.call('RPUSH', tenantWait, jobId)
    else
        redis.call('LPUSH', tenantWait, jobId)
    end
    local readyKey = prefix .. 'tenants:ready'
    if tenant == FAIR_DEFAULT then
        if redis.call('ZCARD', readyKey) > 0 and not redis.call('ZSCORE', readyKey, tenant)
                and redis.call('SISMEMBER', prefix .. 'tenants:capped', tenant) == 0 then
            joinReady(prefix, tenant)
        end
    elseif not redis.call('ZSCORE', readyKey, tenant)
            and redis.call('SISMEMBER', prefix .. 'tenants:capped', tenant) == 0 then
        -- The first other tenant with jobs ready: 'default' takes part in fair dispatch from now on, level with it.
        local first = redis.call('ZCARD', readyKey) == 0
        joinReady(prefix, tenant)
        if first and hasReady(waitKey, prioritizedKey) then
            joinReady(prefix, FAIR_DEFAULT)
        end
    end
    redis.call('ZADD', markerKey, '0', '0')
end

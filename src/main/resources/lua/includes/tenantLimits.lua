-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- A tenant's limits under fair dispatch (fairShare): the most of its jobs running at once and the most starting per
-- window in each queue, fleet-wide. A tenant at either is held out of dispatch (capped) until it is below it again.
--- @include "fairShare"

-- Per-tenant concurrency (a tenant's most jobs running fleet-wide), enforced under fair dispatch:
--   prefix .. 'tenants:concurrency'  hash: tenant -> its limit, copied from its settings by the instances serving the queue
--   prefix .. 'tenants:running'      hash: tenant -> its jobs running that count against the limit (a job counts from
--                                    its activation, flagged 'runningCounted', until it leaves the active list)
--   prefix .. 'tenants:capped'       set: the tenants held out of dispatch at their limit; the next activation after
--                                    one of their jobs left lets them back (releaseCapped)

-- Per-tenant rate limits (a tenant's most starts per window in each queue), enforced the same way:
--   prefix .. 'tenants:rate'         hash: tenant -> '<max>:<window ms>', copied from its settings
--   prefix .. 'tenant:<id>:limiter'  string: the tenant's starts in the current window, expiring with it

-- The key of a tenant's start counter.
local function tenantLimiterKey(prefix, tenant)
    return prefix .. 'tenant:' .. tenant .. ':limiter'
end

-- The room each of the tenants has under its concurrency limit and its rate limit (absent: no limit), and the rate
-- limit of those that have one ({max, window ms}).
local function tenantRoom(prefix, names)
    local room, rates = {}, {}
    if #names == 0 or noTenantSettings(prefix) then
        return room, rates
    end
    if redis.call('EXISTS', prefix .. 'tenants:concurrency') == 1 then
        local limits = redis.call('HMGET', prefix .. 'tenants:concurrency', unpack(names))
        local running = redis.call('HMGET', prefix .. 'tenants:running', unpack(names))
        for i, tenant in ipairs(names) do
            if limits[i] then
                room[tenant] = tonumber(limits[i]) - (tonumber(running[i]) or 0)
            end
        end
    end
    if redis.call('EXISTS', prefix .. 'tenants:rate') == 1 then
        local stored = redis.call('HMGET', prefix .. 'tenants:rate', unpack(names))
        for i, tenant in ipairs(names) do
            if stored[i] then
                local max, window = string.match(stored[i], '^(%d+):(%d+)$')
                local left = tonumber(max) - (tonumber(redis.call('GET', tenantLimiterKey(prefix, tenant))) or 0)
                room[tenant] = room[tenant] and math.min(room[tenant], left) or left
                rates[tenant] = {tonumber(max), tonumber(window)}
            end
        end
    end
    return room, rates
end

-- Counts starts against the rate limits: rates as tenantRoom gives them, started: tenant -> jobs started.
local function countStarts(prefix, rates, started)
    for tenant, count in pairs(started) do
        local rate = rates[tenant]
        if rate and count > 0 then
            local key = tenantLimiterKey(prefix, tenant)
            if redis.call('INCRBY', key, count) == count then
                redis.call('PEXPIRE', key, rate[2])
            end
        end
    end
end

-- When the earliest of the held tenants' rate windows ends (ms, Redis clock), or nil when none is held by its rate.
local function heldUntil(prefix, held, rates, now)
    local wake
    for _, tenant in ipairs(held) do
        if rates[tenant] then
            -- At least 1 ms ahead: a window that ends within this millisecond still wakes a worker.
            local left = math.max(redis.call('PTTL', tenantLimiterKey(prefix, tenant)), 1)
            if not wake or now + left < wake then
                wake = now + left
            end
        end
    end
    return wake
end

-- Holds a tenant at its limit out of dispatch, keeping its usage.
local function capTenant(prefix, tenant)
    leaveReady(prefix, tenant)
    redis.call('SADD', prefix .. 'tenants:capped', tenant)
end

-- A job that counted against its tenant's limit left the active list. counted, tenant: the job's 'runningCounted' and
-- 'tenant' as the caller read them; gone: the job is about to be deleted. When the tenant was held at its limit, sets
-- the marker, so that a worker's next activation lets it back.
local function releaseRunningOf(prefix, jobKey, counted, tenant, gone)
    if not counted then
        return
    end
    tenant = tenant or FAIR_DEFAULT
    if redis.call('HINCRBY', prefix .. 'tenants:running', tenant, -1) <= 0 then
        redis.call('HDEL', prefix .. 'tenants:running', tenant)
    end
    if not gone then
        redis.call('HDEL', jobKey, 'runningCounted')
    end
    if redis.call('SISMEMBER', prefix .. 'tenants:capped', tenant) == 1 then
        redis.call('ZADD', prefix .. 'marker', 0, '0')
    end
end

-- As releaseRunningOf, reading the job's fields.
local function releaseRunning(prefix, jobKey)
    local fields = redis.call('HMGET', jobKey, 'runningCounted', 'tenant')
    releaseRunningOf(prefix, jobKey, fields[1], fields[2], false)
end

-- Lets the tenants held at their limit back into dispatch once they are below it (or have no limit any more): those
-- with jobs ready join at the virtual time, the others are forgotten. now: the Redis clock (ms). Returns whether any
-- tenant is still held, and when the earliest rate window of those held ends (nil: none is held by its rate).
local function releaseCapped(prefix, waitKey, prioritizedKey, now)
    local cappedKey = prefix .. 'tenants:capped'
    if noTenantSettings(prefix) or redis.call('EXISTS', cappedKey) == 0 then
        return false
    end
    local members = redis.call('SMEMBERS', cappedKey)
    local room, rates = tenantRoom(prefix, members)
    local held = {}
    for _, tenant in ipairs(members) do
        if room[tenant] and room[tenant] <= 0 then
            held[#held + 1] = tenant
        else
            redis.call('SREM', cappedKey, tenant)
            local tenantWait, tenantPrioritized = tenantReadyKeys(prefix, waitKey, prioritizedKey, tenant)
            if hasReady(tenantWait, tenantPrioritized) then
                joinReady(prefix, tenant)
            end
        end
    end
    return #held > 0, heldUntil(prefix, held, rates, now)
end

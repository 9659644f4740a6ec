-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Fair dispatch between the tenants of a queue by what their jobs cost: start-time fair queuing (Goyal, Vin and
-- Cheng, "Start-time Fair Queuing", SIGCOMM 1996), with each tenant's jobs as one flow. Every key is named from the
-- queue's prefix, in the queue's hash slot:
--   prefix .. 'tenants:ready'   sorted set: the tenants with jobs ready to run, scored by their weighted usage (the
--                               start tag of their next job); only kept while a tenant other than 'default' has
--                               jobs ready (a queue of one tenant keeps it empty and dispatches exactly as before)
--   prefix .. 'tenants:usage'   hash: tenant -> weighted usage of the tenants not in 'tenants:ready'
--   prefix .. 'tenants:weight'  hash: tenant -> weight (> 0; 1 when absent), written by the tenants' admin API
--   prefix .. 'tenant:<id>:wait', prefix .. 'tenant:<id>:prioritized'  a tenant's ready jobs, as the queue's own
--                               wait list and prioritized set hold those of 'default'
--   meta 'virtualTime'          the start tag of the last job dispatched (the system's virtual time): a tenant that
--                               becomes backlogged starts there, not below, so that idleness banks no credit
--   meta 'costEstimate'         what a job is expected to cost (an average of the costs settled, in the queue's cost
--                               unit), charged when it starts and corrected as its real cost is known
-- A job started under fair dispatch records what its tenant was charged for the attempt in 'chargedMs:<fencingToken>'
-- (slot time, ms) or 'chargedTokens:<fencingToken>' (LLM tokens) of its hash, until the attempt is settled.

local FAIR_DEFAULT = 'default'
-- What a job is expected to cost before any was settled (ms of slot time, or tokens).
local FAIR_FIRST_ESTIMATE = 1000

-- The wait list and prioritized set of a tenant's ready jobs: the queue's own for 'default'.
local function tenantReadyKeys(prefix, waitKey, prioritizedKey, tenant)
    if tenant == FAIR_DEFAULT then
        return waitKey, prioritizedKey
    end
    local base = prefix .. 'tenant:' .. tenant
    return base .. ':wait', base .. ':prioritized'
end

local function hasReady(waitKey, prioritizedKey)
    return redis.call('LLEN', waitKey) > 0 or redis.call('ZCARD', prioritizedKey) > 0
end

-- Puts a tenant among the backlogged ones (when it is not already): at its weighted usage, brought up to the
-- virtual time. The first tenant of a busy period (none was backlogged) moves the virtual time up to its own usage
-- (SFQ sets it to the largest finish tag when the server goes idle), so that 'default', which joins with it, and
-- the tenants that join later start level with it rather than below.
local function joinReady(prefix, tenant)
    local readyKey, metaKey = prefix .. 'tenants:ready', prefix .. 'meta'
    local usage = tonumber(redis.call('HGET', prefix .. 'tenants:usage', tenant)) or 0
    local virtualTime = tonumber(redis.call('HGET', metaKey, 'virtualTime')) or 0
    if usage > virtualTime and redis.call('ZCARD', readyKey) == 0 then
        redis.call('HSET', metaKey, 'virtualTime', usage)
        virtualTime = usage
    end
    redis.call('ZADD', readyKey, 'NX', math.max(usage, virtualTime), tenant)
end

-- Takes a tenant out of the backlogged ones, keeping its weighted usage.
local function leaveReady(prefix, tenant)
    local ready = prefix .. 'tenants:ready'
    local usage = redis.call('ZSCORE', ready, tenant)
    if usage then
        redis.call('HSET', prefix .. 'tenants:usage', tenant, usage)
        redis.call('ZREM', ready, tenant)
    end
end

-- Takes a tenant out of the backlogged ones when it has no job ready left.
local function leaveReadyIfDrained(prefix, waitKey, prioritizedKey, tenant)
    local tenantWait, tenantPrioritized = tenantReadyKeys(prefix, waitKey, prioritizedKey, tenant)
    if not hasReady(tenantWait, tenantPrioritized) then
        leaveReady(prefix, tenant)
    end
end

local function tenantWeight(prefix, tenant)
    local weight = tonumber(redis.call('HGET', prefix .. 'tenants:weight', tenant))
    if weight and weight > 0 then
        return weight
    end
    return 1
end

-- Adds cost (in the queue's cost unit; negative refunds) divided by the tenant's weight to its usage.
local function chargeTenant(prefix, tenant, cost, weight)
    if cost == 0 then
        return
    end
    local share = cost / (weight or tenantWeight(prefix, tenant))
    if not redis.call('ZADD', prefix .. 'tenants:ready', 'XX', 'INCR', share, tenant) then
        redis.call('HINCRBYFLOAT', prefix .. 'tenants:usage', tenant, share)
    end
end

-- The cost a job is expected to have, in the queue's cost unit.
local function costEstimate(meta)
    return tonumber(meta) or FAIR_FIRST_ESTIMATE
end

-- Settles an attempt started under fair dispatch: its tenant is charged its real cost (in place of what it was
-- charged so far), the field is removed, and the queue's estimate moves an eighth of the way to it. field:
-- 'chargedMs:<token>' or 'chargedTokens:<token>'; cost: the attempt's real cost, or nil to keep what was charged
-- (an attempt whose cost is not known, such as a stalled one's). Does nothing for an attempt without the field.
local function settleCharge(prefix, jobKey, field, cost)
    local fields = redis.call('HMGET', jobKey, field, 'tenant')
    local charged = tonumber(fields[1])
    if not charged then
        return
    end
    redis.call('HDEL', jobKey, field)
    if cost then
        chargeTenant(prefix, fields[2] or FAIR_DEFAULT, cost - charged)
        local metaKey = prefix .. 'meta'
        local estimate = costEstimate(redis.call('HGET', metaKey, 'costEstimate'))
        redis.call('HSET', metaKey, 'costEstimate', string.format('%.3f', estimate + (cost - estimate) / 8))
    end
end

-- Settles the slot time of a fenced attempt that leaves the active list: its real cost is the time since it started.
-- fencingToken: the attempt's token as text; now: the Redis clock (ms).
local function settleSlotTime(prefix, jobKey, fencingToken, now)
    local field = 'chargedMs:' .. fencingToken
    if redis.call('HEXISTS', jobKey, field) == 1 then
        local started = tonumber(redis.call('HGET', jobKey, 'processedOn')) or now
        settleCharge(prefix, jobKey, field, math.max(now - started, 0))
    end
end

-- Charges a running attempt what it has cost beyond what it was charged: slot time since it started, or the tokens
-- its worker reports (tokens: nil when the worker reports none). Running work counts towards its tenant's share.
local function accrueCharge(prefix, jobKey, fencingToken, now, tokens)
    local fields = redis.call('HMGET', jobKey, 'chargedMs:' .. fencingToken, 'chargedTokens:' .. fencingToken,
        'processedOn', 'tenant')
    local field, charged, cost
    if fields[1] then
        field, charged = 'chargedMs:' .. fencingToken, tonumber(fields[1])
        cost = now - (tonumber(fields[3]) or now)
    elseif fields[2] and tokens then
        field, charged, cost = 'chargedTokens:' .. fencingToken, tonumber(fields[2]), tokens
    end
    if field and cost > charged then
        chargeTenant(prefix, fields[4] or FAIR_DEFAULT, cost - charged)
        redis.call('HSET', jobKey, field, cost)
    end
end

-- Removes a job from its tenant's ready jobs (a waiting job that is removed, aborted or cleaned) and takes the tenant
-- out of the backlogged ones when none is left. tenant: the job's, false for 'default'. Returns how many entries
-- were removed (0 when the job was not ready).
local function removeReady(prefix, waitKey, prioritizedKey, tenant, jobId)
    tenant = tenant or FAIR_DEFAULT
    local tenantWait, tenantPrioritized = tenantReadyKeys(prefix, waitKey, prioritizedKey, tenant)
    local removed = redis.call('LREM', tenantWait, 0, jobId) + redis.call('ZREM', tenantPrioritized, jobId)
    if removed > 0 then
        leaveReadyIfDrained(prefix, waitKey, prioritizedKey, tenant)
    end
    return removed
end

-- Whether any tenant has a job ready to run.
local function anyReady(prefix, waitKey, prioritizedKey)
    return hasReady(waitKey, prioritizedKey) or redis.call('ZCARD', prefix .. 'tenants:ready') > 0
end

-- The tenants other than 'default' with jobs ready, whose keys a drain or a clean reads besides the queue's own.
local function otherReadyTenants(prefix)
    local others = {}
    for _, tenant in ipairs(redis.call('ZRANGE', prefix .. 'tenants:ready', 0, -1)) do
        if tenant ~= FAIR_DEFAULT then
            others[#others + 1] = tenant
        end
    end
    return others
end

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
--   prefix .. 'tenants:estimate' hash: tenant -> what its jobs are expected to cost (an average of the costs settled,
--                               in the queue's cost unit), charged when one starts and corrected as its real cost is known
--   meta 'costEstimate'         the same for the whole queue: what a job of a tenant without an estimate is charged
-- A job started under fair dispatch records what its tenant was charged for the attempt in 'chargedMs:<fencingToken>'
-- (slot time, ms) or 'chargedTokens:<fencingToken>' (LLM tokens) of its hash, until the attempt is settled.

local FAIR_DEFAULT = 'default'
-- What a job is expected to cost before any was settled (ms of slot time, or tokens).
local FAIR_FIRST_ESTIMATE = 1000

-- The most slot time (ms) one pick of a tenant takes under fair dispatch when its jobs cost less than that: as many of
-- its jobs as fit by its estimate (at least one), so that a queue of short jobs pops each tenant's jobs a few at a time
-- rather than one by one (takeFair). A queue that charges tokens takes one job per pick.
local FAIR_QUANTUM_MS = 20

-- How many jobs one pick takes of a tenant whose jobs are expected to cost cost each, in a queue whose cost unit is
-- costUnit (meta 'costUnit': 'tokens', or nil for slot time): at least 1, at most most.
local function pickSize(costUnit, cost, most)
    if costUnit == 'tokens' or cost >= FAIR_QUANTUM_MS then
        return 1
    end
    return math.max(math.min(math.floor(FAIR_QUANTUM_MS / math.max(cost, 0.001)), most), 1)
end

-- How far past the virtual time a refund that reaches the floor leaves its tenant (chargeTenants), in the queue's cost
-- unit: a thousandth of a token or of a ms, nothing a share can measure, but a tie broken.
local FAIR_BEHIND = 0.001

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
        redis.call('SREM', prefix .. 'tenants:capped', tenant)
    end
end

-- Whether no tenant of the queue has a weight or a limit set, nor is held at one: one EXISTS of the four keys, read
-- once per call of the script, so that the common queue without settings skips their reads. (A call holds a tenant at
-- its limit only when it has one, so the answer stays true for the rest of the call.)
local fairSettings = {}
local function noTenantSettings(prefix)
    if fairSettings.none == nil then
        fairSettings.none = redis.call('EXISTS', prefix .. 'tenants:capped', prefix .. 'tenants:weight',
            prefix .. 'tenants:concurrency', prefix .. 'tenants:rate') == 0
    end
    return fairSettings.none
end

local function tenantWeight(prefix, tenant)
    local weight = tonumber(redis.call('HGET', prefix .. 'tenants:weight', tenant))
    if weight and weight > 0 then
        return weight
    end
    return 1
end

-- The virtual time as this call of the script read it first (read at most once per call).
local fairClock = {}

-- Adds cost (in the queue's cost unit: what a tenant's jobs started or ran up, 0 or more; negative only to undo a pick,
-- undoCharge; other refunds go through chargeTenants, which floors them) divided by the tenant's weight to its usage.
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

-- The real costs settled by this call of the script, folded into the queue's estimate once per call (by
-- activateJobs, or by flushEstimate in a script that activates nothing) rather than once per job.
local fairSettled = {sum = 0, count = 0, tenants = {}, names = {}}

-- Settles an attempt started under fair dispatch, from the job's fields the caller read: its tenant is charged its real
-- cost (in place of what it was charged so far) and the field is removed, unless the job is about to be deleted
-- (gone). The difference is charged with the others of the tenant in this call, once the call settled them all
-- (flushTenantEstimates, by settledEstimate or flushEstimate, which every script that settles calls). field: 'chargedMs:<token>' or 'chargedTokens:<token>'; charged: the field's value (nil when the attempt
-- started outside fair dispatch, or was settled already: nothing to do); tenant: the job's 'tenant' (nil for
-- 'default'); cost: the attempt's real cost.
local function settleChargeOf(prefix, jobKey, field, charged, tenant, cost, gone)
    charged = tonumber(charged)
    if not charged then
        return
    end
    if not gone then
        redis.call('HDEL', jobKey, field)
    end
    fairSettled.sum = fairSettled.sum + cost
    fairSettled.count = fairSettled.count + 1
    tenant = tenant or FAIR_DEFAULT
    local own = fairSettled.tenants[tenant]
    if not own then
        own = {sum = 0, count = 0, difference = 0}
        fairSettled.tenants[tenant] = own
        fairSettled.names[#fairSettled.names + 1] = tenant
    end
    own.sum = own.sum + cost
    own.count = own.count + 1
    own.difference = own.difference + cost - charged
end

-- Settles an attempt started under fair dispatch, reading the job's fields (see settleChargeOf).
local function settleCharge(prefix, jobKey, field, cost)
    local fields = redis.call('HMGET', jobKey, field, 'tenant')
    settleChargeOf(prefix, jobKey, field, fields[1], fields[2], cost, false)
end

-- The ms an attempt has held its worker slot at now (the Redis clock, ms): since started (its job's 'processedOn', ms;
-- nil when absent, which counts as no time held), never below 0.
local function heldMs(started, now)
    return math.max(now - (tonumber(started) or now), 0)
end

-- Settles the slot time of a fenced attempt that leaves the active list: its real cost is the time since it started.
-- fencingToken: the attempt's token as text; now: the Redis clock (ms).
local function settleSlotTime(prefix, jobKey, fencingToken, now)
    local field = 'chargedMs:' .. fencingToken
    local fields = redis.call('HMGET', jobKey, field, 'tenant', 'processedOn')
    if fields[1] then
        settleChargeOf(prefix, jobKey, field, fields[1], fields[2], heldMs(fields[3], now), false)
    end
end

-- An estimate with settled costs folded in: each moves it an eighth of the way to it (their mean stands for each of
-- them); with no estimate yet, their mean.
local function foldEstimate(estimate, sum, count)
    local mean = sum / count
    if not estimate then
        return mean
    end
    return estimate + (1 - (7 / 8) ^ count) * (mean - estimate)
end

-- Adds to each of the tenants (names) its share (shares[i]: a cost already divided by its weight; negative refunds) of
-- usage, with one read (ZMSCORE) and one write (ZADD XX) of the backlogged tenants' usages for them all; a tenant not
-- backlogged has its kept usage incremented. A refund does not take a backlogged tenant below the virtual time (nor
-- lower, when it was below already): a tenant whose running jobs were charged more than they cost would otherwise jump
-- ahead of every tenant, newcomers included, for as many jobs as the difference buys (which the starvation bound rules
-- out). So a tenant pays at least up to the virtual time, and a hair beyond (FAIR_BEHIND): a refund that reaches the floor
-- puts its tenant behind the tenants already waiting at the virtual time (first come first served among equal start
-- tags), rather than before those whose names sort after its own.
local function chargeTenants(prefix, names, shares)
    if #names == 0 then
        return
    end
    local readyKey = prefix .. 'tenants:ready'
    local scores = redis.call('ZMSCORE', readyKey, unpack(names))
    local written = {}
    for i, tenant in ipairs(names) do
        local usage, share = tonumber(scores[i]), shares[i]
        if usage then
            local charged = usage + share
            if share < 0 then
                fairClock.now = fairClock.now or tonumber(redis.call('HGET', prefix .. 'meta', 'virtualTime')) or 0
                charged = math.max(charged, math.min(usage, fairClock.now + FAIR_BEHIND))
            end
            written[#written + 1] = charged
            written[#written + 1] = tenant
        else
            redis.call('HINCRBYFLOAT', prefix .. 'tenants:usage', tenant, share)
        end
    end
    if #written > 0 then
        redis.call('ZADD', readyKey, 'XX', unpack(written))
    end
end

-- Charges each tenant the difference between the real costs of its attempts this call settled and what they were
-- charged (chargeTenants: one read and one write of the usages), and writes each one's own estimate
-- ('tenants:estimate', tenant -> what its jobs are expected to cost) with those costs folded in: one read and one write
-- of the estimates, and one read of the weights, for all the tenants of the call. A difference below one unit (1 ms,
-- 1 token) is left out: it would cost a write for nothing one can measure.
local function flushTenantEstimates(prefix)
    local names = fairSettled.names
    if #names == 0 then
        return
    end
    local key = prefix .. 'tenants:estimate'
    local stored = redis.call('HMGET', key, unpack(names))
    local weights
    local written, charged, shares = {}, {}, {}
    for i, tenant in ipairs(names) do
        local own = fairSettled.tenants[tenant]
        if math.abs(own.difference) >= 1 then
            weights = weights or (noTenantSettings(prefix) and {}
                or redis.call('HMGET', prefix .. 'tenants:weight', unpack(names)))
            local weight = tonumber(weights[i])
            charged[#charged + 1] = tenant
            shares[#shares + 1] = own.difference / ((weight and weight > 0) and weight or 1)
        end
        written[#written + 1] = tenant
        written[#written + 1] = string.format('%.3f', foldEstimate(tonumber(stored[i]), own.sum, own.count))
    end
    chargeTenants(prefix, charged, shares)
    redis.call('HSET', key, unpack(written))
    fairSettled.tenants, fairSettled.names = {}, {}
end

-- The queue's estimate (what a job of a tenant without an estimate of its own is charged) with the costs this call
-- settled folded in, the tenants' own estimates written. stored: the queue's estimate as meta 'costEstimate' holds it
-- (nil before any cost was settled: the first costs settled replace the guess, FAIR_FIRST_ESTIMATE, rather than
-- being averaged with it, so that a newcomer is not charged the guess long after real costs are known). Returns the
-- estimate, and whether it changed.
local function settledEstimate(prefix, stored)
    local count = fairSettled.count
    if count == 0 then
        return costEstimate(stored), false
    end
    flushTenantEstimates(prefix)
    local estimate = foldEstimate(tonumber(stored), fairSettled.sum, count)
    fairSettled.sum, fairSettled.count = 0, 0
    return estimate, true
end

-- The fair-dispatch charge of an attempt not settled yet: its kind ('ms' for slot time, 'tokens'), its field
-- ('chargedMs:<token>' or 'chargedTokens:<token>'), what the tenant was charged for it so far, when it started (the job's
-- 'processedOn', ms; nil when absent) and its tenant; nil when the attempt has no such charge. fencingToken: as text.
local function attemptCharge(jobKey, fencingToken)
    local msField, tokensField = 'chargedMs:' .. fencingToken, 'chargedTokens:' .. fencingToken
    local fields = redis.call('HMGET', jobKey, msField, tokensField, 'processedOn', 'tenant')
    local tenant = fields[4] or FAIR_DEFAULT
    if fields[1] then
        return 'ms', msField, tonumber(fields[1]), tonumber(fields[3]), tenant
    elseif fields[2] then
        return 'tokens', tokensField, tonumber(fields[2]), tonumber(fields[3]), tenant
    end
    return nil
end

-- Undoes the pick of an attempt handed back because a rate limit outside the queue is spent (the LLM budget or the
-- server refused its call before it opened): the job keeps its place, so its tenant pays only what the attempt did
-- cost, in full and at once, without the floor of chargeTenants. The pick had put the tenant's usage at the job's start
-- tag, at or above the virtual time of then; other picks since (another worker's, while this one waited for its call)
-- may have moved the virtual time past it, and a floor there would charge the tenant for a run that did not happen and
-- hand its turn to others. A queue charging slot time is charged the ms the attempt held its slot; one charging tokens
-- nothing (an attempt's calls that did stream were settled by their count, which removed the field). The estimates
-- learn nothing from it. fencingToken: the attempt's, as text; now: the Redis clock (ms).
local function undoCharge(prefix, jobKey, fencingToken, now)
    local kind, field, charged, started, tenant = attemptCharge(jobKey, fencingToken)
    if not kind then
        return
    end
    redis.call('HDEL', jobKey, field)
    chargeTenant(prefix, tenant, (kind == 'ms' and heldMs(started, now) or 0) - charged)
end

-- Settles the charge of an attempt that failed (moveToFailed, called by the attempt's worker once its work has
-- stopped). Slot time: the time since it started, as settleSlotTime. Tokens: the count of an attempt's tokens reaches
-- Redis before its failure does (the worker records them, which settles the charge, before it reports the failure),
-- so a charge still there is that of an attempt that spent none (its call failed before it streamed): its tenant gets
-- it back, no further than the virtual time (chargeTenants), and the estimates learn nothing from it.
-- fencingToken: the attempt's, as text; now: the Redis clock (ms).
local function settleFailedAttempt(prefix, jobKey, fencingToken, now)
    local kind, field, charged, started, tenant = attemptCharge(jobKey, fencingToken)
    if kind == 'ms' then
        settleChargeOf(prefix, jobKey, field, charged, tenant, heldMs(started, now), false)
    elseif kind == 'tokens' then
        redis.call('HDEL', jobKey, field)
        chargeTenants(prefix, {tenant}, {-charged / tenantWeight(prefix, tenant)})
    end
end

-- Writes the estimates with the costs this call settled, in a script that activates no job.
local function flushEstimate(prefix)
    if fairSettled.count > 0 then
        local metaKey = prefix .. 'meta'
        local estimate = settledEstimate(prefix, redis.call('HGET', metaKey, 'costEstimate'))
        redis.call('HSET', metaKey, 'costEstimate', string.format('%.3f', estimate))
    end
end

-- Each tenant's own estimate of what its jobs cost (the queue's, estimate, for a tenant without one), by tenant.
local function tenantEstimates(prefix, names, estimate)
    local stored = redis.call('HMGET', prefix .. 'tenants:estimate', unpack(names))
    local estimates = {}
    for i, tenant in ipairs(names) do
        estimates[tenant] = tonumber(stored[i]) or estimate
    end
    return estimates
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

-- The tenants other than 'default' with jobs ready (backlogged, or held at their concurrency limit), whose keys a
-- drain, a clean or a count reads besides the queue's own.
local function otherReadyTenants(prefix)
    local others, seen = {}, {}
    for _, tenant in ipairs(redis.call('ZRANGE', prefix .. 'tenants:ready', 0, -1)) do
        if tenant ~= FAIR_DEFAULT then
            others[#others + 1] = tenant
            seen[tenant] = true
        end
    end
    -- Those held at their concurrency limit have jobs ready too.
    for _, tenant in ipairs(redis.call('SMEMBERS', prefix .. 'tenants:capped')) do
        if tenant ~= FAIR_DEFAULT and not seen[tenant] then
            others[#others + 1] = tenant
        end
    end
    return others
end

-- Charges a running attempt what it has cost beyond what it was charged: slot time since it started, or the tokens
-- its worker reports (tokens: nil when the worker reports none). Running work counts towards its tenant's share.
local function accrueCharge(prefix, jobKey, fencingToken, now, tokens)
    local kind, field, charged, started, tenant = attemptCharge(jobKey, fencingToken)
    local cost
    if kind == 'ms' then
        cost = heldMs(started, now)
    elseif kind == 'tokens' then
        cost = tokens
    end
    if cost and cost > charged then
        chargeTenant(prefix, tenant, cost - charged)
        redis.call('HSET', jobKey, field, cost)
    end
end

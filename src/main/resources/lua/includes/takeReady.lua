-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Takes the next ready jobs of a queue for activation (activateJobs): the queue's own wait list and prioritized set
-- while 'default' is its only tenant with jobs ready, else by fair dispatch between its tenants (fairShare).
--- @include "fairShare"
--- @include "tenantLimits"

-- Pops up to n ready job ids of one tenant, wait list first, appending them to ids and the state each left
-- ('waiting' or 'prioritized') to states. Returns how many it took.
local function popReady(waitKey, prioritizedKey, n, ids, states)
    local taken = 0
    local popped = redis.call('LMPOP', 1, waitKey, 'RIGHT', 'COUNT', n)
    if popped then
        for _, id in ipairs(popped[2]) do
            ids[#ids + 1] = id
            states[#states + 1] = 'waiting'
        end
        taken = #popped[2]
    end
    if taken < n then
        local more = redis.call('ZPOPMIN', prioritizedKey, n - taken)
        for i = 1, #more, 2 do
            ids[#ids + 1] = more[i]
            states[#states + 1] = 'prioritized'
        end
        taken = taken + #more / 2
    end
    return taken
end

-- Takes up to n ready jobs under fair dispatch, from the n + 1 backlogged tenants of least weighted usage (tenants:
-- their names and scores as ZRANGE WITHSCORES gives them). Simulates start-time fair queuing over them first (each
-- pick the tenant of least usage, ties in the sorted set's order, charged its estimate divided by its weight, for each
-- job of the pick: one, or as many as fit in FAIR_QUANTUM_MS for a tenant of shorter jobs, pickSize), then pops
-- each tenant's picks at once and writes the new usages in one ZADD. The (n + 1)-th tenant only bounds the others:
-- once it would be picked, the batch stops, since a tenant not read could come before it. A tenant found with fewer
-- jobs than picked leaves the backlogged ones (with no job at all: one that ran out at its last pick, left there
-- until now). A tenant with a concurrency limit gets no more picks than its room under it, and once there is held out
-- of dispatch (capped, fairShare). Appends to ids, states, charges (what each job was charged) and counted (whether it
-- counts against its tenant's limit) in pick order; returns the start tag of the last job taken, when the earliest
-- rate window of a tenant it held ends (nil: none), and whether a tenant it read is still backlogged (so that jobs are
-- known to be ready without another read).
local function takeFair(prefix, waitKey, prioritizedKey, n, estimate, costUnit, tenants, ids, states, charges, counted,
        now)
    local names, usage, weights, picks, order, blocked = {}, {}, {}, {}, {}, {}
    for i = 1, #tenants, 2 do
        local tenant = tenants[i]
        names[#names + 1] = tenant
        usage[tenant] = tonumber(tenants[i + 1])
        picks[tenant] = 0
    end
    local costs = tenantEstimates(prefix, names, estimate)
    local stored = not noTenantSettings(prefix) and redis.call('EXISTS', prefix .. 'tenants:weight') == 1
        and redis.call('HMGET', prefix .. 'tenants:weight', unpack(names)) or {}
    for i, tenant in ipairs(names) do
        local weight = tonumber(stored[i])
        weights[tenant] = (weight and weight > 0) and weight or 1
    end
    local bound = #names > n and names[#names]
    local room, rates = tenantRoom(prefix, names)
    -- A binary heap of the tenants by usage, ties in the order read (names is sorted already, so it is a heap).
    local rank = {}
    for i, tenant in ipairs(names) do
        rank[tenant] = i
    end
    local heap = {unpack(names)}
    -- A tenant at its concurrency limit (blocked) comes after every other.
    local function before(a, b)
        if blocked[a] ~= blocked[b] then
            return not blocked[a]
        end
        return usage[a] < usage[b] or (usage[a] == usage[b] and rank[a] < rank[b])
    end
    local startTag = 0
    while #order < n do
        local best = heap[1]
        if best == bound or blocked[best] then
            break
        end
        if room[best] and picks[best] >= room[best] then
            blocked[best] = true
        else
            local take = pickSize(costUnit, costs[best], n - #order)
            if room[best] then
                take = math.min(take, room[best] - picks[best])
            end
            local share = costs[best] / weights[best]
            for _ = 1, take do
                order[#order + 1] = best
            end
            -- The start tag of the pick's last job.
            startTag = math.max(startTag, usage[best] + (take - 1) * share)
            usage[best] = usage[best] + take * share
            picks[best] = picks[best] + take
        end
        -- The least tenant's usage grew, or it is blocked: sift it down.
        local i, size = 1, #heap
        while true do
            local left, right, least = 2 * i, 2 * i + 1, i
            if left <= size and before(heap[left], heap[least]) then
                least = left
            end
            if right <= size and before(heap[right], heap[least]) then
                least = right
            end
            if least == i then
                break
            end
            heap[i], heap[least] = heap[least], heap[i]
            i = least
        end
    end
    local taken, scores, started, capped = {}, {}, {}, {}
    local left = false
    for _, tenant in ipairs(names) do
        local wanted = picks[tenant]
        local count = 0
        if wanted > 0 then
            local tenantWait, tenantPrioritized = tenantReadyKeys(prefix, waitKey, prioritizedKey, tenant)
            local got = {ids = {}, states = {}, next = 1}
            count = popReady(tenantWait, tenantPrioritized, wanted, got.ids, got.states)
            taken[tenant] = got
            usage[tenant] = usage[tenant] - (wanted - count) * costs[tenant] / weights[tenant]
            if room[tenant] and count > 0 then
                redis.call('HINCRBY', prefix .. 'tenants:running', tenant, count)
            end
            started[tenant] = count
        end
        if wanted > 0 and count < wanted then
            redis.call('HSET', prefix .. 'tenants:usage', tenant, usage[tenant])
            redis.call('ZREM', prefix .. 'tenants:ready', tenant)
        elseif blocked[tenant] or (room[tenant] and picks[tenant] >= room[tenant]) then
            redis.call('HSET', prefix .. 'tenants:usage', tenant, usage[tenant])
            redis.call('ZREM', prefix .. 'tenants:ready', tenant)
            redis.call('SADD', prefix .. 'tenants:capped', tenant)
            capped[#capped + 1] = tenant
        else
            if wanted > 0 then
                scores[#scores + 1] = usage[tenant]
                scores[#scores + 1] = tenant
            end
            left = true
        end
    end
    if #scores > 0 then
        redis.call('ZADD', prefix .. 'tenants:ready', 'XX', unpack(scores))
    end
    countStarts(prefix, rates, started)
    for _, tenant in ipairs(order) do
        local got = taken[tenant]
        local id = got.ids[got.next]
        if id then
            ids[#ids + 1] = id
            charges[#charges + 1] = costs[tenant]
            counted[#counted + 1] = room[tenant] ~= nil
            states[#states + 1] = got.states[got.next]
            got.next = got.next + 1
        end
    end
    return startTag, heldUntil(prefix, capped, rates, now), left
end

-- The earlier of two times, either of which may be nil.
local function earliest(a, b)
    if a and b then
        return math.min(a, b)
    end
    return a or b
end

-- Takes up to n ready job ids and pushes them onto the active list. With no tenant other than 'default' backlogged,
-- the queue's wait list first, then its prioritized set; with one tenant backlogged, its jobs in that order, charging
-- it the estimate of what a job costs; with more, by start-time fair queuing (takeFair, see fairShare). Returns the
-- ids, the state each left, whether no job is known to be ready any more (nil when not known), what each job was
-- charged (its tenant's estimate; nil when none was: outside fair dispatch), the start tag of the last job taken (the
-- virtual time from then on), and whether each job counts against its tenant's concurrency limit (nil outside fair
-- dispatch), and when the earliest rate window of a tenant held at its rate limit ends (ms, Redis clock; nil: none). A
-- tenant at its concurrency limit is held out of dispatch until one of its jobs ends, one at its rate limit until its
-- window ends (fairShare). costUnit: meta 'costUnit' ('tokens', or nil for slot time); now: the Redis clock (ms).
local function takeReady(prefix, waitKey, activeKey, prioritizedKey, n, estimate, costUnit, virtualTime, now)
    local ids, states = {}, {}
    local held, wakeAt = releaseCapped(prefix, waitKey, prioritizedKey, now)
    local readyKey = prefix .. 'tenants:ready'
    local tenants = redis.call('ZRANGE', readyKey, 0, n, 'WITHSCORES')
    local drained, charges, counted
    local startTag = virtualTime
    if #tenants == 0 and held and redis.call('SISMEMBER', prefix .. 'tenants:capped', FAIR_DEFAULT) == 1 then
        -- 'default' is held at its limit and no other tenant is backlogged: nothing to take.
        drained = true
    elseif #tenants <= 2 then
        -- Outside fair dispatch ('default' alone), or one tenant backlogged: its jobs in their order, as many as its
        -- concurrency limit leaves room for.
        local tenant = tenants[1] or FAIR_DEFAULT
        local rooms, rates = {}, {}
        if tenants[1] then
            rooms, rates = tenantRoom(prefix, {tenant})
        end
        local room = rooms[tenant]
        local wanted = room and math.max(math.min(n, room), 0) or n
        local tenantWait, tenantPrioritized = tenantReadyKeys(prefix, waitKey, prioritizedKey, tenant)
        local taken = wanted > 0 and popReady(tenantWait, tenantPrioritized, wanted, ids, states) or 0
        if tenants[1] and taken > 0 then
            local cost = tenantEstimates(prefix, {tenant}, estimate)[tenant]
            charges, counted = {}, {}
            for i = 1, taken do
                charges[i] = cost
                counted[i] = room ~= nil
            end
            if room then
                redis.call('HINCRBY', prefix .. 'tenants:running', tenant, taken)
            end
            countStarts(prefix, rates, {[tenant] = taken})
            local weight = tenantWeight(prefix, tenant)
            -- The start tag of the last job taken: each one before it was charged the estimate.
            startTag = math.max(startTag, tonumber(tenants[2]) + (taken - 1) * cost / weight)
            chargeTenant(prefix, tenant, cost * taken, weight)
        end
        if tenants[1] and taken < wanted then
            leaveReady(prefix, tenant)
        elseif room and taken >= room then
            capTenant(prefix, tenant)
            wakeAt = earliest(wakeAt, heldUntil(prefix, {tenant}, rates, now))
        end
        drained = taken < n
    else
        charges, counted = {}, {}
        local lastTag, heldTill, left = takeFair(prefix, waitKey, prioritizedKey, n, estimate, costUnit, tenants, ids,
            states, charges, counted, now)
        if left then
            drained = false
        end
        startTag = math.max(startTag, lastTag)
        wakeAt = earliest(wakeAt, heldTill)
    end
    if #ids > 0 then
        redis.call('LPUSH', activeKey, unpack(ids))
    end
    return ids, states, drained, charges, startTag, counted, wakeAt
end

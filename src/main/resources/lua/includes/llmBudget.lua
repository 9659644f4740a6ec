-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- An LLM budget shared by the fleet (one per endpoint and model): requests and tokens per minute, each a generic cell
-- rate algorithm (GCRA: the ATM Forum's, as rate limiters such as redis-cell use it) with a minute's burst, so that a
-- limit of L per minute admits L at once from full and then one every 60,000 / L ms, as a provider's limit that
-- replenishes continuously does. Its state is one hash (KEYS[1] of the budget scripts):
--   'requestsTat', 'tokensTat'   the theoretical arrival time of each limit (ms, Redis clock): the budget is full when
--                                it is at or before now, spent when it is a minute ahead
--   'providerRequests', 'providerTokens'  the provider's own limits as its headers last gave them (correctLlmBudget):
--                                the smaller of those and the configured limits is the one in force
--   'pausedUntil'                no call starts before this (ms, Redis clock): the provider said wait (pauseLlmBudget)
--   'unavailableSince'           when the server first refused or failed a call since its last success (ms, Redis
--                                clock; pauseLlmBudget, openLlmCircuit), cleared by a success (closeLlmCircuit)
--   'probeMs', 'openUntil', 'prober'  the fleet's circuit, open while 'probeMs' is there (openLlmCircuit): no call
--                                starts before 'openUntil' (ms, Redis clock) but the one probe due then, whose lease
--                                id 'prober' holds; each failed probe doubles 'probeMs' up to a ceiling; the first
--                                success closes it (closeLlmCircuit)
--   'reserved:<lease>'           the tokens a call in flight reserved and the 'tokensCorrections' then, '<tokens>:<n>',
--                                until it settles (settleLlmBudget)
--   'tokensCorrections'          how many times the provider's headers raised the token count (correctLlmBudget): a
--                                call reserved before the last of them settles nothing, the provider's count of it
--                                having replaced its reservation
-- and one sorted set of the calls in flight (KEYS[2]: lease id -> until when it is held, ms), for the most calls at once.

local BUDGET_WINDOW_MS = 60000

-- The limit in force: the configured one (0: none) or the provider's, whichever is smaller; 0 for none.
local function limitInForce(configured, provider)
    configured = tonumber(configured) or 0
    provider = tonumber(provider) or 0
    if configured <= 0 then
        return provider
    end
    if provider <= 0 then
        return configured
    end
    return math.min(configured, provider)
end

-- What a limit still admits now (units, 0 or more): a full minute's worth when its arrival time is at or before now.
local function budgetLeft(tat, limit, now)
    local interval = BUDGET_WINDOW_MS / limit
    local ahead = math.max((tonumber(tat) or now) - now, 0)
    return math.max(math.floor((BUDGET_WINDOW_MS - ahead) / interval), 0)
end

-- Since when the server of the budget whose hash is key has refused or failed every call (ms, Redis clock): the
-- first such call since its last success starts it (current: the hash's 'unavailableSince', nil when available).
local function markUnavailable(key, current, now)
    local since = tonumber(current)
    if not since then
        since = now
        redis.call('HSET', key, 'unavailableSince', since)
    end
    return since
end

--[[
  Corrects an LLM budget (include llmBudget) with what the provider's last answer said of its own limits (OpenAI's
  x-ratelimit-limit-*, x-ratelimit-remaining-* and x-ratelimit-reset-*, Anthropic's anthropic-ratelimit-*): its limits
  are kept, so that the smaller of them and the configured ones is in force, and what the budget still admits is
  brought down to what the provider says remains, never up: a budget set too high converges to the provider's, one set
  lower stays lower. The provider's remaining count is whole; with the time until its limit is full again, the fraction
  of the next unit it has refilled is known too (a limit replenished evenly over the minute, as OpenAI's and Anthropic's
  are), so that the budget's arrival time matches the provider's to the millisecond instead of up to one interval
  early. A correction that raises the budget's token count replaces the reservations of the calls in flight with what
  the provider counted for them: it counts 'tokensCorrections' up, so that those calls settle nothing
  (settleLlmBudget).

  KEYS[1] the budget's hash

  ARGV[1] the provider's request limit per minute (0: not given)
  ARGV[2] the requests it says remain (-1: not given)
  ARGV[3] the provider's token limit per minute (0: not given)
  ARGV[4] the tokens it says remain (-1: not given)
  ARGV[5] requests per minute configured (0: no limit)
  ARGV[6] tokens per minute configured (0: no limit)
  ARGV[7] the time until the provider's request limit is full again, ms (-1: not given)
  ARGV[8] the time until its token limit is full again, ms (-1: not given)

  Returns {requests left, tokens left} after the correction (-1: no limit).
]]
--- @include "nowMs"
--- @include "llmBudget"

local now = nowMs()
if tonumber(ARGV[1]) > 0 then
    redis.call('HSET', KEYS[1], 'providerRequests', ARGV[1])
end
if tonumber(ARGV[3]) > 0 then
    redis.call('HSET', KEYS[1], 'providerTokens', ARGV[3])
end
local state = redis.call('HMGET', KEYS[1], 'requestsTat', 'tokensTat', 'providerRequests', 'providerTokens')
local left = {}
for i, kind in ipairs({'requests', 'tokens'}) do
    local limit = limitInForce(ARGV[4 + i], state[2 + i])
    local providerLimit = tonumber(ARGV[2 * i - 1])
    local remaining = tonumber(ARGV[2 * i])
    local reset = tonumber(ARGV[6 + i])
    if limit <= 0 then
        left[i] = -1
    else
        local tat = math.max(tonumber(state[i]) or now, now)
        if remaining >= 0 then
            -- What the provider admits now, with the fraction of the next unit it refilled: between remaining and
            -- remaining + 1, from the time until it is full again when given (else remaining: the cautious end).
            local available = remaining
            if reset >= 0 and providerLimit > 0 then
                available = providerLimit - reset * providerLimit / BUDGET_WINDOW_MS
                available = math.min(math.max(available, remaining), remaining + 1)
            end
            local providerTat = now + BUDGET_WINDOW_MS - available * BUDGET_WINDOW_MS / limit
            if providerTat > tat then
                tat = providerTat
                redis.call('HSET', KEYS[1], kind .. 'Tat', math.ceil(tat))
                if kind == 'tokens' then
                    redis.call('HINCRBY', KEYS[1], 'tokensCorrections', 1)
                end
            end
        end
        left[i] = budgetLeft(tat, limit, now)
    end
end
return left

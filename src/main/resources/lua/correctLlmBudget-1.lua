--[[
  Corrects an LLM budget (include llmBudget) with what the provider's last answer said of its own limits (OpenAI's
  x-ratelimit-limit-* and x-ratelimit-remaining-*, Anthropic's anthropic-ratelimit-*): its limits are kept, so that the
  smaller of them and the configured ones is in force, and what the budget still admits is brought down to what the
  provider says remains, never up: a budget set too high converges to the provider's, one set lower stays lower.

  KEYS[1] the budget's hash

  ARGV[1] the provider's request limit per minute (0: not given)
  ARGV[2] the requests it says remain (-1: not given)
  ARGV[3] the provider's token limit per minute (0: not given)
  ARGV[4] the tokens it says remain (-1: not given)
  ARGV[5] requests per minute configured (0: no limit)
  ARGV[6] tokens per minute configured (0: no limit)

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
    local remaining = tonumber(ARGV[2 * i])
    if limit <= 0 then
        left[i] = -1
    else
        local tat = math.max(tonumber(state[i]) or now, now)
        if remaining >= 0 and remaining < budgetLeft(tat, limit, now) then
            tat = now + BUDGET_WINDOW_MS - remaining * BUDGET_WINDOW_MS / limit
            redis.call('HSET', KEYS[1], kind .. 'Tat', tat)
        end
        left[i] = budgetLeft(tat, limit, now)
    end
end
return left

--[[
  Settles a call's reservation of an LLM budget (include llmBudget) once the call ended: the tokens the provider
  counted for it replace those it reserved (a call counted fewer gives the rest back, never beyond a full budget; one
  counted more spends the difference), and it leaves the calls in flight. A lease that ran out before (its reservation
  was let go by reserveLlmBudget) settles nothing: its reserved tokens stayed spent. Nor does a call whose reservation
  a correction from the provider's headers replaced (correctLlmBudget counted 'tokensCorrections' up since it was
  reserved): the budget then holds what the provider counted for it, and giving back the difference from its
  reservation would give it back twice.

  KEYS[1] the budget's hash
  KEYS[2] the budget's calls in flight

  ARGV[1] the call's lease id
  ARGV[2] the tokens the provider counted for it (-1: not known; the reservation stands)
  ARGV[3] tokens per minute configured (0: no limit)

  Returns 1 when settled, 0 when the lease was not in flight.
]]
--- @include "nowMs"
--- @include "llmBudget"

local field = 'reserved:' .. ARGV[1]
-- '<tokens>:<the provider's corrections when it was reserved>'
local value = redis.call('HGET', KEYS[1], field)
redis.call('ZREM', KEYS[2], ARGV[1])
if not value then
    return 0
end
redis.call('HDEL', KEYS[1], field)
local reserved, corrections = string.match(value, '^([%d.]+):(%d+)$')
reserved = tonumber(reserved or value)
local used = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokensTat', 'providerTokens', 'tokensCorrections')
local tokenLimit = limitInForce(ARGV[3], state[2])
local replaced = corrections and corrections ~= (state[3] or '0')
if used >= 0 and used ~= reserved and tokenLimit > 0 and state[1] and not replaced then
    local now = nowMs()
    local tat = tonumber(state[1]) + (used - reserved) * BUDGET_WINDOW_MS / tokenLimit
    redis.call('HSET', KEYS[1], 'tokensTat', math.max(tat, now))
end
return 1

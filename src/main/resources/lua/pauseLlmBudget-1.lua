--[[
  Pauses every new call of an LLM budget (include llmBudget) for the whole fleet: the provider answered 429 or 503 with
  the time to wait (retry-after, retry-after-ms, or its reset headers). A pause only ever grows: a shorter one than the
  pause under way changes nothing. The server counts as unavailable from the first refusal since its last success.

  KEYS[1] the budget's hash

  ARGV[1] how long to pause from now, ms (the caller adds its jitter)

  Returns {how long calls wait from now (ms), how long the server has been unavailable (ms)}.
]]
--- @include "nowMs"
--- @include "llmBudget"

local now = nowMs()
local pausedUntil = now + tonumber(ARGV[1])
local state = redis.call('HMGET', KEYS[1], 'pausedUntil', 'unavailableSince')
local since = markUnavailable(KEYS[1], state[2], now)
local current = tonumber(state[1])
if current and current >= pausedUntil then
    return {current - now, now - since}
end
redis.call('HSET', KEYS[1], 'pausedUntil', pausedUntil)
return {pausedUntil - now, now - since}

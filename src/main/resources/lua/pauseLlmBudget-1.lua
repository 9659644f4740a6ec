--[[
  Pauses every new call of an LLM budget (include llmBudget) for the whole fleet: the provider answered 429 or 503 with
  the time to wait (retry-after, retry-after-ms, or its reset headers). A pause only ever grows: a shorter one than the
  pause under way changes nothing.

  KEYS[1] the budget's hash

  ARGV[1] how long to pause from now, ms (the caller adds its jitter)

  Returns until when calls are paused (ms, Redis clock).
]]
--- @include "nowMs"

local now = nowMs()
local pausedUntil = now + tonumber(ARGV[1])
local current = tonumber(redis.call('HGET', KEYS[1], 'pausedUntil'))
if current and current >= pausedUntil then
    return current
end
redis.call('HSET', KEYS[1], 'pausedUntil', pausedUntil)
return pausedUntil

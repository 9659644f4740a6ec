--[[
  Opens (or keeps open) the fleet's circuit of an LLM budget (include llmBudget): a call found the server down (its
  connection refused or reset, no headers in time, or 5xx answers through all of its tries), so that every instance's
  calls wait for it instead of failing. While open, one call probes the server when 'openUntil' comes (reserveLlmBudget,
  which names it in 'prober'); the probe's failure doubles the probe interval up to ARGV[2], and another call's failure
  (one that started before the circuit opened and failed later) changes nothing, so that a burst of failing calls opens
  the circuit once. The server counts as unavailable from the first failure since its last success.

  KEYS[1] the budget's hash

  ARGV[1] the first probe interval, ms
  ARGV[2] the longest probe interval, ms
  ARGV[3] the failed call's lease id

  Returns {how long calls wait from now for the next probe (ms, 0 or more), how long the server has been unavailable
  (ms)}.
]]
--- @include "nowMs"
--- @include "llmBudget"

local now = nowMs()
local state = redis.call('HMGET', KEYS[1], 'probeMs', 'openUntil', 'unavailableSince', 'prober')
local since = markUnavailable(KEYS[1], state[3], now)
local probe = tonumber(state[1])
if probe and state[4] ~= ARGV[3] then
    return {math.max((tonumber(state[2]) or now) - now, 0), now - since}
end
probe = probe and math.min(probe * 2, tonumber(ARGV[2])) or tonumber(ARGV[1])
local openUntil = now + probe
redis.call('HSET', KEYS[1], 'probeMs', probe, 'openUntil', openUntil)
redis.call('HDEL', KEYS[1], 'prober')
return {probe, now - since}

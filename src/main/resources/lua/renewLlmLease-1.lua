--[[
  Renews the lease of an LLM call in flight while it streams (its instance is alive): its place among the calls at
  once holds for another lease from now. A lease that ran out before (reserveLlmBudget let its place go, as its
  instance looked dead) is not taken again: the call goes on outside the budget's count until it ends.

  KEYS[1] the budget's calls in flight (sorted set: lease id -> until when it is held, ms)

  ARGV[1] the call's lease id
  ARGV[2] how long the lease holds from now, ms

  Returns 1 when renewed, 0 when the lease was not in flight.
]]
--- @include "nowMs"

if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    return 0
end
redis.call('ZADD', KEYS[1], nowMs() + tonumber(ARGV[2]), ARGV[1])
return 1

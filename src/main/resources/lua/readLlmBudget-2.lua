--[[
  Reads an LLM budget (include llmBudget) as an operator sees it, without changing it: the limits in force, what they
  still admit, the calls in flight, the pause and the fleet's circuit.

  KEYS[1] the budget's hash
  KEYS[2] the budget's calls in flight

  ARGV[1] requests per minute configured (0: no limit)
  ARGV[2] tokens per minute configured (0: no limit)

  Returns {now (ms, Redis clock), request limit in force (0: none), requests left (-1: no limit), token limit in force
  (0: none), tokens left (-1: no limit), calls in flight (leases not run out), paused until (ms, 0: not paused),
  circuit open until the next probe (ms, 0: closed), probe interval (ms, 0: closed), unavailable since (ms, 0: available),
  the provider's request limit (0: not given), the provider's token limit (0: not given)}.
]]
--- @include "nowMs"
--- @include "llmBudget"

local now = nowMs()
local state = redis.call('HMGET', KEYS[1], 'requestsTat', 'tokensTat', 'providerRequests', 'providerTokens',
    'pausedUntil', 'openUntil', 'probeMs', 'unavailableSince')
local requestLimit = limitInForce(ARGV[1], state[3])
local tokenLimit = limitInForce(ARGV[2], state[4])
local pausedUntil = tonumber(state[5]) or 0
local probe = tonumber(state[7]) or 0
return {now, requestLimit, requestLimit > 0 and budgetLeft(state[1], requestLimit, now) or -1,
    tokenLimit, tokenLimit > 0 and budgetLeft(state[2], tokenLimit, now) or -1,
    redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf'),
    pausedUntil > now and pausedUntil or 0,
    probe > 0 and (tonumber(state[6]) or 0) or 0, probe,
    tonumber(state[8]) or 0, tonumber(state[3]) or 0, tonumber(state[4]) or 0}

--[[
  Closes the fleet's circuit of an LLM budget (include llmBudget) on a call's success (its response headers came with a
  2xx status): the server is available again, every instance's calls start at once, and its time unavailable starts
  afresh at the next failure. A pause the provider asked for stays until its end.

  KEYS[1] the budget's hash

  Returns 1 when the circuit was open or the server counted as unavailable, 0 when neither.
]]

return redis.call('HDEL', KEYS[1], 'probeMs', 'openUntil', 'prober', 'unavailableSince') > 0 and 1 or 0

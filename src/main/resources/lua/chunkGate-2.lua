--[[
  What a chunked job's runtime reads right before each chunk, in one round trip: whether an operator asked it
  to stop (the abort flag), and its current throttle (changeable while it runs). Reads only.

  KEYS[1] job abort flag (string, PX abort-flag TTL)
  KEYS[2] job hash

  Returns {abort, throttle}: abort 1 when the flag is set, else 0; throttle the job's 'throttle' field (JSON
  text: {"pauseBetweenChunksMs": n, "maxItemsPerSecond": n|null}) or '' when it has none.
]]
local abort = redis.call('EXISTS', KEYS[1])
local throttle = redis.call('HGET', KEYS[2], 'throttle') or ''
return {abort, throttle}

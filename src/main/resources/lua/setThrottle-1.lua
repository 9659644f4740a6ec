--[[
  Sets the throttle of a chunked job that has not finished; its runtime reads it right before the next
  chunk (chunkGate).

  KEYS[1] job hash

  ARGV[1] throttle (JSON text: {"pauseBetweenChunksMs": n, "maxItemsPerSecond": n|null})

  Returns {code, state}: 1 set; -1 no such job; -8 the job has finished (completed or failed), nothing
  changed. An aborted job may still be resumed, so its throttle can be set. state is the job's state.
]]
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
    return {-1, ''}
end
if state == 'completed' or state == 'failed' then
    return {-8, state}
end
redis.call('HSET', KEYS[1], 'throttle', ARGV[1])
return {1, state}

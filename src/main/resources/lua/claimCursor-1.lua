--[[
  Claims a chunked job's cursor in the Redis sink for an epoch (the Redis twin of PostgresCursors.claim):
  creates the cursor hash at the start, or raises its fencing token to this epoch's and records the attempt,
  unless a newer epoch already holds it (Kleppmann's fencing token, checked where the writes land). After this,
  a chunk of an older epoch, or of another attempt under the same token, can no longer commit.

  KEYS[1] the job's cursor hash in the sink: cursor, fencingToken, attempt, chunksDone, itemsDone

  ARGV[1] the epoch's fencing token
  ARGV[2] the attempt's id (its lock token)

  Returns {1, cursor, chunksDone, itemsDone} when claimed; {0, fencingToken} when a newer epoch holds it.
]]
local token = tonumber(ARGV[1])
local held = tonumber(redis.call('HGET', KEYS[1], 'fencingToken') or '0')
if held > token then
    return {0, held}
end
redis.call('HSET', KEYS[1], 'fencingToken', ARGV[1], 'attempt', ARGV[2])
redis.call('HSETNX', KEYS[1], 'cursor', '')
redis.call('HSETNX', KEYS[1], 'chunksDone', '0')
redis.call('HSETNX', KEYS[1], 'itemsDone', '0')
local state = redis.call('HMGET', KEYS[1], 'cursor', 'chunksDone', 'itemsDone')
return {1, state[1], tonumber(state[2]), tonumber(state[3])}

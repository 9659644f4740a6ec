--[[
  Takes a single-flight key for a running job: at most one running job holds a key at a time. The key holds
  the holder's job id and no expiry of its own: it is held while the holder is active with a live lock, so a
  holder that crashed or stalled gives it up when its lock expires, and a finished holder gives it up at once.

  KEYS[1] single-flight key

  ARGV[1] job id of the caller (a running job)
  ARGV[2] key prefix of the queue, 'fq:{name}:' (the holder's hash, which holds its lock, is read under it)

  Returns {code, holder}: 1 the caller holds the key now (or held it already); 0 another job holds it, holder
  is that job's id.
]]
--- @include "singleFlightHolder"

local holder = singleFlightHolder(KEYS[1], ARGV[2], ARGV[1])
if holder then
    return {0, holder}
end
redis.call('SET', KEYS[1], ARGV[1])
return {1, ARGV[1]}

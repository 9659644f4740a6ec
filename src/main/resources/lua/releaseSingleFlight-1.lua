--[[
  Gives up a single-flight key, if the caller holds it.

  KEYS[1] single-flight key

  ARGV[1] job id of the caller

  Returns 1 released; 0 the caller did not hold it, nothing changed.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
    redis.call('DEL', KEYS[1])
    return 1
end
return 0

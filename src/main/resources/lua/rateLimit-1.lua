--[[
  Counts one request against a fixed-window rate limit (a client's requests to start jobs), shared by every
  instance: the first request of a window creates the counter with the window's length as its TTL, so the
  counter can never outlive its window. A refused request is not counted.

  KEYS[1] the counter of the client's current window

  ARGV[1] the limit: requests per window
  ARGV[2] the window, ms

  Returns {1, remaining} when the request is admitted (remaining: what the window still admits after it);
  {0, retryAfterMs} when the window is full (retryAfterMs: until the window ends).
]]
local limit = tonumber(ARGV[1])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= limit then
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl < 0 then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        ttl = tonumber(ARGV[2])
    end
    return {0, ttl}
end
count = redis.call('INCR', KEYS[1])
if count == 1 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return {1, limit - count}

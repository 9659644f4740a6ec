-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Redis server time in milliseconds since the epoch: the one clock every process compares against.
-- Returns it as a number and as decimal text (hot scripts pass the text to redis.call, because Lua turns
-- a number argument into text with a costly '%.14g' format), and the time in microseconds, which the
-- worker scripts return so that a worker can time delayed jobs against the Redis clock precisely.
local function nowMs()
    local t = redis.call('TIME')
    local micros = string.rep('0', 6 - #t[2]) .. t[2]
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), t[1] .. string.sub(micros, 1, 3),
        tonumber(t[1]) * 1000000 + tonumber(t[2])
end

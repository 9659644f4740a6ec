-- Redis server time in milliseconds since the epoch: the one clock every process compares against.
local function nowMs()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

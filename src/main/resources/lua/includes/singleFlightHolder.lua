-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- The running job that holds a single-flight key, if one does: the key names its holder and has no expiry of its
-- own, so it counts as held only while that job is active with a live lock (a holder that crashed or stalled gives it
-- up when its lock expires; a finished one gives it up at once).
--   key     the single-flight key, '<prefix>single-flight:<name>'
--   prefix  the queue's key prefix, 'fq:{name}:' (the holder's hash is read under it)
--   caller  a job id that does not count as another holder ('' for none)
-- Returns the holder's job id, or nil when no other running job holds the key.
--- @include "nowMs"
local function singleFlightHolder(key, prefix, caller)
    local holder = redis.call('GET', key)
    if holder and holder ~= caller then
        local held = redis.call('HMGET', prefix .. 'job:' .. holder, 'state', 'lockedUntil')
        if held[1] == 'active' and (tonumber(held[2]) or 0) > nowMs() then
            return holder
        end
    end
    return nil
end

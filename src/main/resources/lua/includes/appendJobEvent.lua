-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Appends one entry to a job's event stream: fields 'type', 'token' (the fencing token of the epoch
-- that wrote it, 0 before any run) and 'data' (JSON). maxLen bounds the stream (approximate trimming).
-- Returns the entry id.
local function appendJobEvent(eventsKey, maxLen, eventType, token, data)
    return redis.call('XADD', eventsKey, 'MAXLEN', '~', maxLen, '*',
        'type', eventType, 'token', token, 'data', data)
end

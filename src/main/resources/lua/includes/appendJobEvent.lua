-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Appends one entry to a job's event stream in its stored form (StoredEvent in Java): fields 'type', 'token' (the
-- fencing token of the epoch that wrote it, 0 before any run), 'data' (the event's own fields as JSON, without the
-- 'status' and 'fencingToken' the entry holds; or an answer delta's counters) and 'text' (an answer delta's text, ''
-- for any other event). Every entry has these four fields, so Redis stores their names once per stream node.
-- maxLen bounds the stream (approximate trimming); text may be nil for ''.
-- Returns the entry id.
local function appendJobEvent(eventsKey, maxLen, eventType, token, data, text)
    return redis.call('XADD', eventsKey, 'MAXLEN', '~', maxLen, '*',
        'type', eventType, 'token', token, 'data', data, 'text', text or '')
end

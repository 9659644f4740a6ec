-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Appends one event to the queue's event stream (BullMQ's queue events): fields 'event', 'jobId', then
-- the given field/value pairs. maxLen bounds the stream (entries, approximate trimming).
local function queueEvent(eventsKey, maxLen, event, jobId, ...)
    redis.call('XADD', eventsKey, 'MAXLEN', '~', maxLen, '*', 'event', event, 'jobId', jobId, ...)
end

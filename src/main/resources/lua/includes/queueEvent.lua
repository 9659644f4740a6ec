-- Appends one event to the queue's event stream (BullMQ's queue events): fields 'event', 'jobId', then
-- the given field/value pairs. maxLen bounds the stream (entries, approximate trimming).
local function queueEvent(eventsKey, maxLen, event, jobId, ...)
    redis.call('XADD', eventsKey, 'MAXLEN', '~', maxLen, '*', 'event', event, 'jobId', jobId, ...)
end

-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes the values.
-- Builds the stored data of a job event that a script writes itself (a 'started' event, or the 'failed' or 'aborted'
-- event of a job that ends inside Redis), in the stored form of a job event's data (StoredEvent in Java): the event's
-- own fields, without the 'status' (the entry's type) and 'fencingToken' (the entry's token) that readers put back
-- first: {"workerId": id (when a worker wrote it), then the event's own field}.
-- quotedWorkerId: the worker id as a JSON string (cjson.encode(workerId)), or false; name, value: the event's own
-- field, its value as JSON text (a number's digits, or cjson.encode of a text), or nil for none.
local function jobEventData(quotedWorkerId, name, value)
    local json = '{'
    if quotedWorkerId then
        json = json .. '"workerId":' .. quotedWorkerId
    end
    if name then
        json = json .. (quotedWorkerId and ',"' or '"') .. name .. '":' .. value
    end
    return json .. '}'
end

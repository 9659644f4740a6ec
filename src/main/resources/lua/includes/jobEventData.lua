-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes the values.
-- Builds the data of a job event that a script writes itself (a 'started' event, or the 'failed' or 'aborted' event
-- of a job that ends inside Redis), in the one shape of a job event's data (JobEventData in Java): {"status": type,
-- "fencingToken": token, "workerId": id (when a worker wrote it), then the event's own field}.
-- status: the event type (an identifier, no escaping needed); token: the fencing token as decimal text; quotedWorkerId:
-- the worker id as a JSON string (cjson.encode(workerId)), or false; name, value: the event's own field, its value as
-- JSON text (a number's digits, or cjson.encode of a text), or nil for none.
local function jobEventData(status, token, quotedWorkerId, name, value)
    local json = '{"status":"' .. status .. '","fencingToken":' .. token
    if quotedWorkerId then
        json = json .. ',"workerId":' .. quotedWorkerId
    end
    if name then
        json = json .. ',"' .. name .. '":' .. value
    end
    return json .. '}'
end

-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Builds the JSON data of a terminal event whose fields are known only inside Redis.
-- status: 'failed' | 'aborted'; token: fencing token (number); reason: text; workerId: text or false.
local function finishedPayload(status, token, reason, workerId)
    local json = '{"status":' .. cjson.encode(status) .. ',"fencingToken":' .. token
        .. ',"reason":' .. cjson.encode(reason)
    if workerId then
        json = json .. ',"workerId":' .. cjson.encode(workerId)
    end
    return json .. '}'
end

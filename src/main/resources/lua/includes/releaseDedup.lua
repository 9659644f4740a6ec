-- Ends the deduplication of a finished job whose dedup key has no TTL (it lives until the job ends).
local function releaseDedup(prefix, jobKey, jobId)
    local fields = redis.call('HMGET', jobKey, 'dedupId', 'dedupTtl')
    if fields[1] and (not fields[2] or fields[2] == '0') then
        local dedupKey = prefix .. 'dedup:' .. fields[1]
        if redis.call('GET', dedupKey) == jobId then
            redis.call('DEL', dedupKey)
        end
    end
end

-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Ends the deduplication of a finished job whose dedup key has no TTL (it lives until the job ends).
-- releaseDedupOf takes the job's 'dedupId' and 'dedupTtl' fields already read (false when absent).
local function releaseDedupOf(prefix, jobId, dedupId, dedupTtl)
    if dedupId and (not dedupTtl or dedupTtl == '0') then
        local dedupKey = prefix .. 'dedup:' .. dedupId
        if redis.call('GET', dedupKey) == jobId then
            redis.call('DEL', dedupKey)
        end
    end
end

local function releaseDedup(prefix, jobKey, jobId)
    local fields = redis.call('HMGET', jobKey, 'dedupId', 'dedupTtl')
    releaseDedupOf(prefix, jobId, fields[1], fields[2])
end

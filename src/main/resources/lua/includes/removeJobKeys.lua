-- Deletes every key of a job: its hash, lock, fencing token counter and event stream, and its
-- deduplication key when that key still points to the job. (Idempotency keys outlive the job on purpose.)
local function removeJobKeys(prefix, jobId)
    local jobRef = prefix .. 'job:' .. jobId
    local dedupId = redis.call('HGET', jobRef, 'dedupId')
    if dedupId then
        local dedupKey = prefix .. 'dedup:' .. dedupId
        if redis.call('GET', dedupKey) == jobId then
            redis.call('DEL', dedupKey)
        end
    end
    redis.call('DEL', jobRef, jobRef .. ':lock', jobRef .. ':fence', jobRef .. ':events')
end

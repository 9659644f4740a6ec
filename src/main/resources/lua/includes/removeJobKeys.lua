-- Deletes every key of a job: its hash (which holds its fencing token and lock), event stream and abort flag, the keys
-- of its children when it is a flow's parent (':children', ':dependencies', ':processed', ':failed'), and its
-- deduplication key when that key still points to the job. (Idempotency keys outlive the job on purpose.)
-- dedupId: the job's 'dedupId' field when already read (false when absent), or nil to read it here.
local function removeJobKeys(prefix, jobId, dedupId)
    local jobRef = prefix .. 'job:' .. jobId
    if dedupId == nil then
        dedupId = redis.call('HGET', jobRef, 'dedupId')
    end
    if dedupId then
        local dedupKey = prefix .. 'dedup:' .. dedupId
        if redis.call('GET', dedupKey) == jobId then
            redis.call('DEL', dedupKey)
        end
    end
    redis.call('DEL', jobRef, jobRef .. ':events', jobRef .. ':abort', jobRef .. ':children', jobRef .. ':dependencies',
        jobRef .. ':processed', jobRef .. ':failed')
end

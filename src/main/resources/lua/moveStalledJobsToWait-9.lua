--[[
  The stalled-job check, run about once per stalled interval across the whole fleet (the check key
  is set with PX, below), in one phase: an active job whose lock has expired (its hash's 'lockedUntil', ms, is not
  after the Redis clock) is stalled. (BullMQ checks in two phases, a job being stalled only if it was already active
  at the previous check, which delays a takeover by up to one more interval; here activation sets the lock in the
  same script that makes a job active, so an active job without a live lock has lost it.) A stalled job goes back to the front of the wait list, or
  fails once it stalled more than maxStalledCount times. Its old worker is told through the revoked
  channel ('<jobId>:<fencingToken>'). A job sent back records why its next run continues: 'resumeReason'
  'takeover' (the resume event of that run says so).

  KEYS[1] stalled set (the two-phase check's; emptied, so that nothing of it outlives an upgrade)
  KEYS[2] wait list
  KEYS[3] active list
  KEYS[4] prioritized set
  KEYS[5] failed set (score: finish time, ms)
  KEYS[6] stalled-check key
  KEYS[7] marker set
  KEYS[8] meta hash
  KEYS[9] queue event stream

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] maximum stalled count (a job stalled more often than this fails)
  ARGV[3] stalled interval (ms)
  ARGV[4] maximum length of a job event stream (entries)
  ARGV[5] revoked channel
  ARGV[6] maximum length of the queue event stream (entries)

  Returns a flat list {jobId, outcome, ...}, outcome 'waiting' or 'failed'; empty when no job stalled
  or when a process already ran the check within the interval (less its margin).
]]
--- @include "nowMs"
--- @include "fairShare"
--- @include "tenantLimits"
--- @include "pushReady"
--- @include "appendJobEvent"
--- @include "jobEventData"
--- @include "queueEvent"
--- @include "releaseDedup"
--- @include "applyRetention"
--- @include "noteParent"

-- The check key lives the interval less a margin (a quarter of it, at most 100 ms): the process that ran the check
-- then finds it gone at its next tick even when the timer or the network brings that tick a little early. With
-- exactly the interval, a lone instance skipped about every other check, and a dead worker's jobs waited one more
-- interval.
local interval = tonumber(ARGV[3])
local checkTtl = math.max(1, interval - math.min(math.floor(interval / 4), 100))
if redis.call('SET', KEYS[6], '1', 'NX', 'PX', checkTtl) == false then
    return {}
end

local prefix = ARGV[1]
local maxStalledCount = tonumber(ARGV[2])
local now = nowMs()
local result = {}
for _, jobId in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
    local jobRef = prefix .. 'job:' .. jobId
    if (tonumber(redis.call('HGET', jobRef, 'lockedUntil')) or 0) <= now and redis.call('LREM', KEYS[3], 1, jobId) > 0 then
        local stalls = redis.call('HINCRBY', jobRef, 'stalledCounter', 1)
        local token = redis.call('HGET', jobRef, 'fencingToken') or '0'
        -- Slot time is settled now; a charge in tokens stays, for the count of the attempt's worker to settle (late,
        -- when the worker is a zombie; never, when it died: its tenant stays charged what it was).
        settleSlotTime(prefix, jobRef, token, now)
        releaseRunning(prefix, jobRef)
        if stalls > maxStalledCount then
            local reason = 'job stalled more than allowable limit'
            redis.call('ZADD', KEYS[5], now, jobId)
            redis.call('HSET', jobRef, 'state', 'failed', 'failedReason', reason, 'finishedOn', now)
            if redis.call('HGET', jobRef, 'events') == '1' then
                appendJobEvent(jobRef .. ':events', ARGV[4], 'failed', token,
                    jobEventData(false, 'reason', cjson.encode(reason)))
            end
            queueEvent(KEYS[9], ARGV[6], 'stalled', jobId)
            queueEvent(KEYS[9], ARGV[6], 'failed', jobId, 'failedReason', reason)
            releaseDedup(prefix, jobRef, jobId)
            local parent = redis.call('HMGET', jobRef, 'parentKey', 'parentPolicy')
            noteParent(prefix, jobId, parent[1], parent[2], 'failed', reason)
            applyRetention(KEYS[5], prefix, now, redis.call('HGET', jobRef, 'keepFailed'), jobId)
            result[#result + 1] = jobId
            result[#result + 1] = 'failed'
        else
            local priority = tonumber(redis.call('HGET', jobRef, 'priority')) or 0
            redis.call('HSET', jobRef, 'state', priority > 0 and 'prioritized' or 'waiting', 'resumeReason', 'takeover')
            pushReady(KEYS[2], KEYS[4], KEYS[7], KEYS[8], jobId, priority, true)
            queueEvent(KEYS[9], ARGV[6], 'stalled', jobId)
            result[#result + 1] = jobId
            result[#result + 1] = 'waiting'
        end
        redis.call('PUBLISH', ARGV[5], jobId .. ':' .. token)
    end
end

flushEstimate(prefix)
redis.call('DEL', KEYS[1])
return result

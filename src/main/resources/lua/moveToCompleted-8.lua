--[[
  Completes one or more jobs of a worker and, in the same round trip, activates the worker's next jobs.
  For each job: a fenced write of its return value, the move from active to completed, the 'completed'
  events, the job's retention (removeOnComplete); then one activateJobs for all the slots they freed.
  Only the owner of a job's current epoch can complete it; a job whose check fails is left unchanged and
  the others are completed. A job whose removeOnComplete keeps no job (count 0) is deleted with all its
  keys, without first being written as completed (its queue event still carries its return value); the keys of
  all such jobs of the call go in one DEL. A job's own keys are named from the key prefix and its id
  ('<prefix>job:<id>', ':events', ':abort', and a parent's ':children', ':dependencies', ':processed', ':failed'),
  all within the queue's hash tag. A job with a parent leaves a notice for it (noteParent).

  KEYS[1] active list
  KEYS[2] completed set (score: finish time, ms)
  KEYS[3] wait list
  KEYS[4] prioritized set
  KEYS[5] delayed set
  KEYS[6] marker set
  KEYS[7] meta hash
  KEYS[8] queue event stream

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] maximum length of a job event stream (entries)
  ARGV[3] maximum length of the queue event stream (entries)
  ARGV[4] next jobs to activate for this worker (0 = none)
  ARGV[5] lock token prefix for those jobs
  ARGV[6] lock duration (ms)
  ARGV[7] worker id
  ARGV[8...] five per job: job id, lock token, fencing token, return value (JSON), data of its
          'completed' event (its stored form, StoredEvent in Java: JSON without 'status' and 'fencingToken'; written only
          when the job keeps an event stream)

  Returns {codes, activationCode, now, extra, jobs...}: codes holds one code per job, in ARGV order: 0
  when completed, or -1 (no such job), -7 (stale fencing token or attempt), -9 (not active), in which case that
  job was left unchanged; the rest is the activation as in moveToActive
  (ARGV[4] being the number asked for). When no job could be completed, nothing is activated
  (activationCode 0, extra -1). Idempotent (include finishOnce): a repeat of a call that completed a job, with the
  same ARGV[5], returns the first reply (the activated jobs' fields as they are now) and changes nothing; its record
  (field ARGV[5] of '<prefix>finished:<second>') lives for at least ARGV[6] ms.
]]
--- @include "nowMs"
--- @include "checkOwnership"
--- @include "appendJobEvent"
--- @include "fairShare"
--- @include "tenantLimits"
--- @include "queueEvent"
--- @include "releaseDedup"
--- @include "applyRetention"
--- @include "activateJobs"
--- @include "finishOnce"
--- @include "noteParent"

-- Completes one job; returns 0, or the ownership check's code. The keys of a job that keeps nothing are added to
-- doomed, deleted together once every job of the call is done.
local function complete(prefix, now, nowText, jobId, lockToken, token, returnValue, eventData, doomed)
    local jobKey = prefix .. 'job:' .. jobId
    local chargedField = 'chargedMs:' .. token
    local fields = redis.call('HMGET', jobKey, 'state', 'lockToken', 'fencingToken', 'events', 'keepCompleted',
        'dedupId', 'parentKey', 'parentPolicy', 'hasChildren', chargedField, 'tenant', 'processedOn', 'runningCounted')
    local code = checkOwnershipOf(fields[1], fields[2], fields[3], lockToken, token)
    if code ~= 0 then
        return code
    end
    local keep = fields[5]
    -- From the tail: activation pushes at the head, and jobs mostly end in the order they started.
    redis.call('LREM', KEYS[1], '-1', jobId)
    local gone = keep and string.sub(keep, 1, 2) == '0,'
    if fields[10] then
        settleChargeOf(prefix, jobKey, chargedField, fields[10], fields[11],
            math.max(now - (tonumber(fields[12]) or now), 0), gone)
    end
    releaseRunningOf(prefix, jobKey, fields[13], fields[11], gone)
    if fields[4] == '1' then
        appendJobEvent(jobKey .. ':events', ARGV[2], 'completed', token, eventData)
    end
    queueEvent(KEYS[8], ARGV[3], 'completed', jobId, 'returnvalue', returnValue)
    noteParent(prefix, jobId, fields[7], fields[8], 'completed', returnValue)
    if keep and string.sub(keep, 1, 2) == '0,' then
        -- Kept nowhere: removed with all its keys (as removeJobKeys), without being written as completed first.
        if fields[6] then
            local dedupKey = prefix .. 'dedup:' .. fields[6]
            if redis.call('GET', dedupKey) == jobId then
                doomed[#doomed + 1] = dedupKey
            end
        end
        doomed[#doomed + 1] = jobKey
        doomed[#doomed + 1] = jobKey .. ':events'
        doomed[#doomed + 1] = jobKey .. ':abort'
        if fields[9] then
            doomed[#doomed + 1] = jobKey .. ':children'
            doomed[#doomed + 1] = jobKey .. ':dependencies'
            doomed[#doomed + 1] = jobKey .. ':processed'
            doomed[#doomed + 1] = jobKey .. ':failed'
        end
        if keep ~= '0,-1' and redis.call('ZCARD', KEYS[2]) > 0 then
            applyRetention(KEYS[2], prefix, now, keep, jobId)
        end
    else
        local kept = redis.call('HMGET', jobKey, 'dedupTtl', 'attemptsMade')
        redis.call('ZADD', KEYS[2], nowText, jobId)
        redis.call('HSET', jobKey, 'state', 'completed', 'returnvalue', returnValue, 'finishedOn', nowText,
            'attemptsMade', (tonumber(kept[2]) or 0) + 1)
        releaseDedupOf(prefix, jobId, fields[6], kept[1])
        applyRetention(KEYS[2], prefix, now, keep, jobId)
    end
    return 0
end

local prefix = ARGV[1]
local now, nowText, nowMicros = nowMs()
local codes = {}
local completed = 0
local doomed = {}
for i = 8, #ARGV, 5 do
    local code = complete(prefix, now, nowText, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], doomed)
    codes[#codes + 1] = code
    if code == 0 then
        completed = completed + 1
    end
end
if #doomed > 0 then
    redis.call('DEL', unpack(doomed))
end
if completed == 0 then
    -- Either the worker owns none of the jobs, or this call is a repeat of one that completed them (a repeat finds
    -- no job it can complete, so a call that completed one is no repeat): only then is the record looked for.
    return repeatedFinish(prefix, ARGV[5], ARGV[6], now, nowMicros) or {codes, 0, nowMicros, -1}
end
local activation, extra, jobs = activateJobs(KEYS[3], KEYS[1], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8],
    prefix, tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[7], ARGV[2], ARGV[3], now, nowText)
return rememberFinish(prefix, ARGV[5], ARGV[6], now, activationReply({codes}, activation, nowMicros, extra, jobs))

--[[
  Renews the locks of all of one worker's active jobs and checks their fencing tokens, in one round trip.
  A renewed lock is held until the Redis clock plus the lock duration (the hash's 'lockedUntil', ms). A job whose
  lock expired but whose token is still current and which is still active gets its lock back (nobody else can have
  taken it: taking it would have incremented the token). A renewed job
  leaves the stalled set, so the stalled-job check never takes a job that is being renewed. A renewed job started
  under fair dispatch charges its tenant what it has cost so far beyond what was charged (fairShare's accrueCharge):
  running work counts towards the tenant's share.

  KEYS[1] stalled set

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] lock duration (ms)
  ARGV[3], ARGV[4], ARGV[5], ARGV[6], ...  four per job: jobId, lock token, fencing token, and the LLM tokens the
          attempt has spent so far ('' when the worker counts none: the queue's cost is slot time)

  Returns a flat list {jobId, code, ...} of the jobs the worker no longer owns, empty when it owns all:
    -1  the job does not exist
    -7  stale fencing token or attempt: a newer epoch, or another attempt, owns the job
    -9  the job is not active (finished, aborted, or handed back to the queue)
]]
--- @include "nowMs"
--- @include "checkOwnership"
--- @include "fairShare"

local prefix = ARGV[1]
local now = nowMs()
local lockedUntil = string.format('%d', now + tonumber(ARGV[2]))
local lost = {}
for i = 3, #ARGV, 4 do
    local jobId, lockToken, token = ARGV[i], ARGV[i + 1], ARGV[i + 2]
    local jobRef = prefix .. 'job:' .. jobId
    local code = checkOwnership(jobRef, lockToken, token)
    if code == 0 then
        redis.call('HSET', jobRef, 'lockedUntil', lockedUntil)
        redis.call('SREM', KEYS[1], jobId)
        accrueCharge(prefix, jobRef, token, now, tonumber(ARGV[i + 3]))
    else
        lost[#lost + 1] = jobId
        lost[#lost + 1] = code
    end
end
return lost

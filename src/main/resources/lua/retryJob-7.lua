--[[
  Retries a failed job: moves it from the failed set back to the wait list (or the prioritized set) with
  a fresh count of attempts. Its next run is a new epoch ('resumeReason' 'retry'). Appends a 'waiting' queue event.

  KEYS[1] failed set
  KEYS[2] wait list
  KEYS[3] prioritized set
  KEYS[4] marker set
  KEYS[5] meta hash
  KEYS[6] job hash
  KEYS[7] queue event stream

  ARGV[1] job id
  ARGV[2] maximum length of the queue event stream (entries)

  Returns {code, state}: 1 retried; -1 no such job; -12 the job is not failed (aborted jobs are never
  retried), nothing changed. state is the job's state before the call ('' when there is no job).
]]
--- @include "requeueJob"
--- @include "queueEvent"

local jobId = ARGV[1]
local state = redis.call('HGET', KEYS[6], 'state')
if not state then
    return {-1, ''}
end
if state ~= 'failed' then
    return {-12, state}
end
requeueJob(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], jobId)
queueEvent(KEYS[7], ARGV[2], 'waiting', jobId, 'prev', 'failed')
return {1, state}

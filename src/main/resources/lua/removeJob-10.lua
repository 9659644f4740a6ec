--[[
  Removes a job that is not running, with all its keys, from whichever structure holds it, and appends a
  'removed' queue event.

  KEYS[1]  job hash
  KEYS[2]  job lock
  KEYS[3]  wait list
  KEYS[4]  active list
  KEYS[5]  delayed set
  KEYS[6]  prioritized set
  KEYS[7]  completed set
  KEYS[8]  failed set
  KEYS[9]  stalled set
  KEYS[10] queue event stream

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] job id
  ARGV[3] maximum length of the queue event stream (entries)

  Returns {code, state}: 1 removed; -1 no such job; -11 the job is running (active or locked), nothing
  removed. state is the job's state ('' when there is no job).
]]
--- @include "queueEvent"
--- @include "removeJobKeys"

local jobId = ARGV[2]
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
    return {-1, ''}
end
if state == 'active' or redis.call('EXISTS', KEYS[2]) == 1 then
    return {-11, state}
end
redis.call('LREM', KEYS[3], 0, jobId)
redis.call('LREM', KEYS[4], 0, jobId)
redis.call('ZREM', KEYS[5], jobId)
redis.call('ZREM', KEYS[6], jobId)
redis.call('ZREM', KEYS[7], jobId)
redis.call('ZREM', KEYS[8], jobId)
redis.call('SREM', KEYS[9], jobId)
removeJobKeys(ARGV[1], jobId)
queueEvent(KEYS[10], ARGV[3], 'removed', jobId, 'prev', state)
return {1, state}

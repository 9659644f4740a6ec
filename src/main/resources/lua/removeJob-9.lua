--[[
  Removes a job that is not running, with all its keys, from whichever structure holds it (the waiting-children
  set, named from the prefix, included), and appends a 'removed' queue event.

  KEYS[1]  job hash
  KEYS[2]  wait list
  KEYS[3]  active list
  KEYS[4]  delayed set
  KEYS[5]  prioritized set
  KEYS[6]  completed set
  KEYS[7]  failed set
  KEYS[8]  stalled set
  KEYS[9]  queue event stream

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] job id
  ARGV[3] maximum length of the queue event stream (entries)

  Returns {code, state}: 1 removed; -1 no such job; -11 the job is running (active), nothing
  removed. state is the job's state ('' when there is no job).
]]
--- @include "fairShare"
--- @include "queueEvent"
--- @include "removeJobKeys"

local jobId = ARGV[2]
local job = redis.call('HMGET', KEYS[1], 'state', 'tenant')
local state = job[1]
if not state then
    return {-1, ''}
end
if state == 'active' then
    return {-11, state}
end
removeReady(ARGV[1], KEYS[2], KEYS[5], job[2], jobId)
redis.call('LREM', KEYS[3], 0, jobId)
redis.call('ZREM', KEYS[4], jobId)
redis.call('ZREM', KEYS[6], jobId)
redis.call('ZREM', KEYS[7], jobId)
redis.call('SREM', KEYS[8], jobId)
redis.call('ZREM', ARGV[1] .. 'waiting-children', jobId)
removeJobKeys(ARGV[1], jobId)
queueEvent(KEYS[9], ARGV[3], 'removed', jobId, 'prev', state)
return {1, state}

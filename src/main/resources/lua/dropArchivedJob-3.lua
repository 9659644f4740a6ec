--[[
  Drops a finished job from Redis once the archive holds it (the archiver wrote it to PostgreSQL and committed
  first): all of its keys, and its member of the completed or failed set. Only the finishing that was archived is
  dropped: a job that is no longer finished, or finished again since (an operator's retry, or Redis lost the
  writes that finished it and the job ran again), is left alone, to be archived as the finishing it is now.

  KEYS[1]  job hash
  KEYS[2]  completed set
  KEYS[3]  failed set

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] job id
  ARGV[3] the job's 'finishedOn' as archived (ms on the Redis clock, as the hash holds it)

  Returns 1 dropped; 0 left alone (not finished, or another finishing); -1 no such job (dropped already, or
  removed): its id is taken out of the completed and failed sets all the same, so that the archiver does not find it
  again.
]]
--- @include "removeJobKeys"

local job = redis.call('HMGET', KEYS[1], 'state', 'finishedOn', 'dedupId')
local state = job[1]
if not state then
    redis.call('ZREM', KEYS[2], ARGV[2])
    redis.call('ZREM', KEYS[3], ARGV[2])
    return -1
end
if (state ~= 'completed' and state ~= 'failed' and state ~= 'aborted') or job[2] ~= ARGV[3] then
    return 0
end
removeJobKeys(ARGV[1], ARGV[2], job[3] or false)
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
return 1

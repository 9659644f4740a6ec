--[[
  An operator's abort of a chunked job that is running: sets its abort flag, which the job's runtime checks
  right before each chunk, so the job stops at a chunk boundary and keeps its cursor. The flag expires after
  its TTL, so a flag nobody acted on cannot stop tomorrow's run. A job that is not running is left alone (the
  caller aborts it at once with abortJob).

  KEYS[1] job hash
  KEYS[2] job abort flag

  ARGV[1] abort flag TTL (ms)

  Returns {code, state}: 1 flag set (the job is active); 0 not active, nothing changed; -1 no such job.
  state is the job's state ('' when there is no job).
]]
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
    return {-1, ''}
end
if state ~= 'active' then
    return {0, state}
end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return {1, state}

--[[
  Adds children to a running job (flows: JobContext.addChildren), fenced like every write of a run: only the
  owner of the job's current epoch can, so a zombie parent adds nothing. Child ids are derived from the parent's
  id and keys the processor gives, so a later run that adds the same children adds nothing again: a child key
  already in the job's ':children' set is skipped. Each new child becomes a pending dependency and its spec goes
  to the queue's pending-children hash, from which the service adds it in its own queue (FlowRelay), also after
  a crash.

  KEYS[1] job hash
  KEYS[2] job's children set (every child job key it ever had)
  KEYS[3] job's dependencies set (pending child job keys)
  KEYS[4] pending-children hash (child job key -> the child's spec, JSON, until the child is added)

  ARGV[1] lock token
  ARGV[2] fencing token
  ARGV[3...] two per child: its job key, its spec (JSON)

  Returns the number of children new to the job (0 when a run added them all before), or -1 (no such job),
  -7 (stale fencing token or attempt), -9 (not active).
]]
--- @include "checkOwnership"

local code = checkOwnership(KEYS[1], ARGV[1], ARGV[2])
if code ~= 0 then
    return code
end
local added = 0
for i = 3, #ARGV, 2 do
    if redis.call('SADD', KEYS[2], ARGV[i]) == 1 then
        redis.call('SADD', KEYS[3], ARGV[i])
        redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1])
        added = added + 1
    end
end
if added > 0 then
    redis.call('HSET', KEYS[1], 'hasChildren', '1')
end
return added

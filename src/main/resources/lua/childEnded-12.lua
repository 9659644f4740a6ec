--[[
  Delivers to a parent job that one of its children ended (flows; BullMQ's parent-child dependencies). Runs in
  the parent's queue, sent by the service for each notice a child's ending left in the child's queue (noteParent),
  so a child may live in another queue, on another Redis Cluster node. Idempotent: a child that is no longer a
  pending dependency of the parent changes nothing.
  A completed child's return value is kept in the parent's ':processed' hash. A failed or aborted child follows
  its policy: 'ignore' keeps its reason in the parent's ':failed' hash and the parent goes on; 'remove' drops the
  dependency; 'fail' (the default) keeps its reason there too and fails the parent for good (when the parent is
  running, it records 'failedChild' for moveToWaitingChildren to report). When the last dependency went, a parent
  in 'waiting-children' becomes ready (wait list or prioritized set), recording why its next run continues
  ('resumeReason' 'children', which the resume event of that run says).

  KEYS[1]  parent's job hash
  KEYS[2]  parent's dependencies set (pending child job keys)
  KEYS[3]  parent's processed hash (child job key -> return value, JSON)
  KEYS[4]  parent's failed-children hash (child job key -> reason)
  KEYS[5]  wait list
  KEYS[6]  prioritized set
  KEYS[7]  marker set
  KEYS[8]  meta hash
  KEYS[9]  waiting-children set
  KEYS[10] failed set (score: finish time, ms)
  KEYS[11] parent's job event stream
  KEYS[12] queue event stream

  ARGV[1] key prefix of the parent's queue, 'fq:{name}:'
  ARGV[2] parent's job id
  ARGV[3] child's job key
  ARGV[4] how the child ended: 'completed' | 'failed' | 'aborted'
  ARGV[5] its return value (JSON) when completed, else its reason (text)
  ARGV[6] its policy: 'fail' | 'ignore' | 'remove'
  ARGV[7] maximum length of a job event stream (entries)
  ARGV[8] maximum length of the queue event stream (entries)

  Returns 0 when the child was no pending dependency (already delivered, or the parent is gone), 1 when it was
  recorded and the parent still waits (or runs), 2 when the parent became ready, 3 when the parent failed for good
  (a notice for the parent's own parent is then left in this queue).
]]
--- @include "nowMs"
--- @include "pushReady"
--- @include "appendJobEvent"
--- @include "jobEventData"
--- @include "queueEvent"
--- @include "releaseDedup"
--- @include "applyRetention"
--- @include "noteParent"

local prefix, parentId, childKey, outcome, value = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if redis.call('SREM', KEYS[2], childKey) == 0 then
    return 0
end
local parent = redis.call('HMGET', KEYS[1], 'state', 'fencingToken', 'events', 'keepFailed', 'priority', 'lifo',
    'parentKey', 'parentPolicy')
local state = parent[1]
if not state then
    return 0
end
if outcome == 'completed' then
    redis.call('HSET', KEYS[3], childKey, value)
elseif ARGV[6] == 'ignore' then
    redis.call('HSET', KEYS[4], childKey, value)
elseif ARGV[6] ~= 'remove' then
    redis.call('HSET', KEYS[4], childKey, value)
    local reason = 'child ' .. childKey .. ' ' .. outcome .. ': ' .. value
    if state ~= 'waiting-children' then
        if state ~= 'completed' and state ~= 'failed' and state ~= 'aborted' then
            redis.call('HSET', KEYS[1], 'failedChild', reason)
        end
        return 1
    end
    local now, nowText = nowMs()
    local token = parent[2] or '0'
    redis.call('ZREM', KEYS[9], parentId)
    redis.call('ZADD', KEYS[10], nowText, parentId)
    redis.call('HSET', KEYS[1], 'state', 'failed', 'failedReason', reason, 'finishedOn', nowText)
    if parent[3] == '1' then
        appendJobEvent(KEYS[11], ARGV[7], 'failed', token, jobEventData(false, 'reason',
            cjson.encode(reason)))
    end
    queueEvent(KEYS[12], ARGV[8], 'failed', parentId, 'failedReason', reason, 'prev', 'waiting-children')
    releaseDedup(prefix, KEYS[1], parentId)
    noteParent(prefix, parentId, parent[7], parent[8], 'failed', reason)
    applyRetention(KEYS[10], prefix, now, parent[4], parentId)
    return 3
end
if state ~= 'waiting-children' or redis.call('SCARD', KEYS[2]) > 0 then
    return 1
end
local priority = tonumber(parent[5]) or 0
redis.call('ZREM', KEYS[9], parentId)
redis.call('HSET', KEYS[1], 'state', priority > 0 and 'prioritized' or 'waiting', 'resumeReason', 'children')
pushReady(KEYS[5], KEYS[6], KEYS[7], KEYS[8], parentId, priority, parent[6] == '1')
if redis.call('HEXISTS', KEYS[8], 'paused') == 1 then
    redis.call('ZREM', KEYS[7], '0')
end
queueEvent(KEYS[12], ARGV[8], 'waiting', parentId, 'prev', 'waiting-children')
return 2

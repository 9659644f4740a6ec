--[[
  Obliterates a paused queue: deletes every key under the queue's prefix (jobs, their streams, lists,
  sets, counters, idempotency and deduplication keys, the queue event stream), a bounded number per call,
  the meta hash (which holds the paused flag) last.

  KEYS[1] meta hash
  KEYS[2] active list

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] '1' to obliterate even with active jobs (their workers' writes are then rejected), '0' not to
  ARGV[3] most keys to delete in this call

  Returns {deleted, done}: done 1 once nothing of the queue is left; or {-13, 0} when the queue is not
  paused and {-11, 0} when it has active jobs and ARGV[2] is '0' (nothing deleted).
]]
-- A queue without a meta hash was never paused (jobs without a priority create none), so it is refused too.
if redis.call('HEXISTS', KEYS[1], 'paused') == 0 then
    return {-13, 0}
end
if ARGV[2] ~= '1' and redis.call('LLEN', KEYS[2]) > 0 then
    return {-11, 0}
end
local limit = tonumber(ARGV[3])
local pattern = string.gsub(ARGV[1], '[%*%?%[%]\\]', '\\%0') .. '*'
local deleted = 0
local cursor = '0'
repeat
    local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
    cursor = page[1]
    for _, key in ipairs(page[2]) do
        if key ~= KEYS[1] and deleted < limit then
            redis.call('DEL', key)
            deleted = deleted + 1
        end
    end
until cursor == '0' or deleted >= limit
if deleted < limit then
    deleted = deleted + redis.call('DEL', KEYS[1])
    return {deleted, 1}
end
return {deleted, 0}

--[[
  Produces the job of one tick of a job scheduler, once fleet-wide: every instance may try, only the one that finds
  the scheduler's next tick still equal to the tick it read moves it on (a compare-and-set on the schedules set), and
  the job's id, '<schedulerId>:<tick>', makes even a repeat of the same production a no-op. In the same script: the
  job (addJobCore), the tick count, and the next tick (or the end of the scheduler: past its endDate, or its limit
  reached).

  KEYS[1]  schedules set (scheduler id -> next tick, ms since the epoch)
  KEYS[2]  the scheduler's state hash (ticks, lastJobId, lastTick, skipped, skippedBecause, refused, refusedReason,
           ended)
  KEYS[3..11] the KEYS of addJob for the template's queue (wait, delayed, prioritized, marker, meta, id counter,
           queue events, waiting-children, pending-children)

  ARGV[1] scheduler id
  ARGV[2] the tick it read (ms since the epoch)
  ARGV[3] the tick after it (ms since the epoch); -1 when there is none
  ARGV[4] '1' to produce the job, '0' to skip the tick (a missed tick, under the policy 'skip')
  ARGV[5] most ticks that produce a job (0 = no limit)
  ARGV[6] what a running job of the template's single-flight key does to the tick: 'skip:<key>' (the tick is
          skipped), 'refuse:<key>' (the tick is refused, with the reason recorded), '' (nothing: no such key)
  ARGV[7...] the ARGV of addJob (its job id '<schedulerId>:<tick>', schedulerId, tick)

  Returns {code, jobId}: 0 the tick was no longer the scheduler's next (produced elsewhere, or the scheduler changed,
  paused or removed): nothing done; 1 the tick was skipped or refused; 2 its job was added (or existed), jobId its id.
]]
--- @include "addJobCore"
--- @include "singleFlightHolder"

local id, tick = ARGV[1], ARGV[2]
local current = redis.call('ZSCORE', KEYS[1], id)
if not current or tonumber(current) ~= tonumber(tick) then
    return {0, ''}
end
local ticks = tonumber(redis.call('HGET', KEYS[2], 'ticks')) or 0
local limit = tonumber(ARGV[5])
local code, jobId = 1, ''
local overlap, flight = string.match(ARGV[6], '^(%a+):(.+)$')
local holder = flight and singleFlightHolder(ARGV[7] .. 'single-flight:' .. flight, ARGV[7], '') or nil
local due = ARGV[4] == '1' and (limit == 0 or ticks < limit)
if due and not holder then
    local jobKeys = {KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]}
    local jobArgs = {}
    for i = 7, #ARGV do
        jobArgs[#jobArgs + 1] = ARGV[i]
    end
    jobId = addJobCore(jobKeys, jobArgs)[1]
    ticks = redis.call('HINCRBY', KEYS[2], 'ticks', 1)
    redis.call('HSET', KEYS[2], 'lastJobId', jobId, 'lastTick', tick)
    code = 2
elseif due and overlap == 'refuse' then
    redis.call('HSET', KEYS[2], 'refused', tick, 'refusedReason', 'job ' .. holder .. ' of single-flight key `'
        .. flight .. '` has not finished')
else
    redis.call('HSET', KEYS[2], 'skipped', tick, 'skippedBecause',
        due and 'overlap' or (ARGV[4] == '1' and 'limit' or 'missed'))
end
if tonumber(ARGV[3]) >= 0 and (limit == 0 or ticks < limit) then
    redis.call('ZADD', KEYS[1], ARGV[3], id)
else
    redis.call('ZREM', KEYS[1], id)
    redis.call('HSET', KEYS[2], 'ended', '1')
end
return {code, jobId}

--[[
  Counts the LLM tokens one attempt of a job spent, by how the attempt ended, and what a takeover saved; and adds
  them (prompt and completion) to what the job's tenant spent in the queue this day and this month, which its token
  quota is checked against (Tenants in Java). Not fenced on purpose: the tokens of a run that lost its fence (a zombie)
  were spent all the same, and counting them is the point. With the model's prices, counts what they cost beside them
  (in micro-units of the prices' currency, whole numbers). Writes only the job hash's 'tokens:*' and 'cost:*' fields,
  which nothing else reads for the job's state, and the tenant counters; a job already removed is left alone.

  KEYS[1] job hash
  KEYS[2] the queue's tenant token counters of the current day (hash: tenant id -> tokens)
  KEYS[3] the queue's tenant token counters of the current month (hash: tenant id -> tokens)
  KEYS[4] the queue's tenant cost counters of the current day (hash: tenant id -> micro-units of the prices' currency)
  KEYS[5] the queue's tenant cost counters of the current month (hash: tenant id -> micro-units)

  ARGV[1] outcome: result | failed | zombie | handed-back | revoked ('revoked' is recorded as 'aborted' when the
          job is aborted, else as 'zombie': a revoked run was either aborted or handed to another worker)
  ARGV[2] prompt tokens of the attempt
  ARGV[3] completion tokens of the attempt
  ARGV[4] of those, completion tokens generated after the attempt's last committed event (lost work), 0 for none
  ARGV[5] completion tokens earlier runs committed that the attempt continued instead of generating again, 0 for none
  ARGV[6] how the attempt went on after a takeover: reattach | continue | restart, or '' on the job's first run
  ARGV[7] how long the day's counters live after their last write (ms)
  ARGV[8] how long the month's counters live after their last write (ms)
  ARGV[9] the attempt's fencing token, whose fair-dispatch charge ('chargedTokens:<token>', fairShare) the
          attempt's tokens settle
  ARGV[10] what the attempt's tokens cost at the model's prices, in micro-units (a whole number), or '' when no
           prices are set (then no cost is counted)
  ARGV[11] what the completion tokens of ARGV[5] would have cost, in micro-units (counted when ARGV[5] > 0 and
           ARGV[10] is not '')

  Fields: 'tokens:<outcome>:attempts|prompt|completion', 'tokens:<outcome>:lost' (when ARGV[4] > 0),
  'tokens:saved:completion' (when ARGV[5] > 0), 'tokens:takeovers:<kind>' (when ARGV[6] is set); the field of the
  job's 'tenant' ('default' when it has none) in KEYS[2] and KEYS[3]. With prices: 'cost:<outcome>' and
  'cost:saved' (when ARGV[5] > 0), in micro-units, and the tenant's field in KEYS[4] and KEYS[5] (when the cost is
  above 0), which live as long as KEYS[2] and KEYS[3].

  Returns {outcome recorded, the job's tenant ('default' when it has none)}, or {'', ''} when the job no longer
  exists.
]]
--- @include "fairShare"

local job = redis.call('HMGET', KEYS[1], 'state', 'tenant')
local state = job[1]
if not state then
    return {'', ''}
end
local tenant = job[2] or 'default'
local outcome = ARGV[1]
if outcome == 'revoked' then
    outcome = state == 'aborted' and 'aborted' or 'zombie'
end
local prefix = 'tokens:' .. outcome .. ':'
redis.call('HINCRBY', KEYS[1], prefix .. 'attempts', 1)
redis.call('HINCRBY', KEYS[1], prefix .. 'prompt', ARGV[2])
redis.call('HINCRBY', KEYS[1], prefix .. 'completion', ARGV[3])
if tonumber(ARGV[4]) > 0 then
    redis.call('HINCRBY', KEYS[1], prefix .. 'lost', ARGV[4])
end
if tonumber(ARGV[5]) > 0 then
    redis.call('HINCRBY', KEYS[1], 'tokens:saved:completion', ARGV[5])
end
if ARGV[6] ~= '' then
    redis.call('HINCRBY', KEYS[1], 'tokens:takeovers:' .. ARGV[6], 1)
end
local spent = tonumber(ARGV[2]) + tonumber(ARGV[3])
if spent > 0 then
    redis.call('HINCRBY', KEYS[2], tenant, spent)
    redis.call('PEXPIRE', KEYS[2], ARGV[7])
    redis.call('HINCRBY', KEYS[3], tenant, spent)
    redis.call('PEXPIRE', KEYS[3], ARGV[8])
end
if ARGV[10] ~= '' then
    redis.call('HINCRBY', KEYS[1], 'cost:' .. outcome, ARGV[10])
    if tonumber(ARGV[5]) > 0 then
        redis.call('HINCRBY', KEYS[1], 'cost:saved', ARGV[11])
    end
    if tonumber(ARGV[10]) > 0 then
        redis.call('HINCRBY', KEYS[4], tenant, ARGV[10])
        redis.call('PEXPIRE', KEYS[4], ARGV[7])
        redis.call('HINCRBY', KEYS[5], tenant, ARGV[10])
        redis.call('PEXPIRE', KEYS[5], ARGV[8])
    end
end
local prefix = string.match(KEYS[1], '^(.-)job:')
settleCharge(prefix, KEYS[1], 'chargedTokens:' .. ARGV[9], spent)
flushEstimate(prefix)
return {outcome, tenant}

--[[
  Reserves one call's share of an LLM budget shared by the fleet (include llmBudget): a request, the tokens the call
  may use, and a place among the calls in flight, all or nothing. Calls in flight whose lease ran out (their
  instance died, or a zombie never settled) leave the calls in flight first; their tokens stay spent.

  KEYS[1] the budget's hash
  KEYS[2] the budget's calls in flight (sorted set: lease id -> until when it is held, ms)
  KEYS[3] the budget's line (sorted set: job id -> when the budget first held its call back, ms), with each job's
          place held until the hash's 'line:<job id>' (ms)

  ARGV[1] requests per minute configured (0: no limit)
  ARGV[2] tokens per minute configured (0: no limit)
  ARGV[3] most calls in flight (0: no limit)
  ARGV[4] the tokens to reserve: the prompt's, estimated, and the most the answer may use (a call larger than the
          token limit reserves the whole limit, so that it can start once the budget is full)
  ARGV[5] the call's lease id
  ARGV[6] how long the lease holds without renewal, ms
  ARGV[7] how long the server may stay unavailable before calls stop waiting for it, ms (fq.llm.outage.timeout)
  ARGV[8] the job the call is for (its id), or '' for none: the jobs whose calls the budget held back wait in line,
          so that a job handed back to wait keeps its place among the calls too

  Returns {1, requests left, tokens left, unwell} when reserved (left: -1 for no limit; unwell: 1 when the server was
  unavailable since its last success, so that this call's success should close the circuit, else 0);
  {0, wait ms, reason} when not, where reason is 'unavailable' (the server has been refusing or failing every call for
  longer than ARGV[7] and no call may probe it now: wait 0, the attempt fails), 'paused' (the provider said wait),
  'open' (the circuit is open: wait until the next probe, or at most 1,000 ms while a probe is under way, so that
  its success lets the calls start soon), 'concurrency' (too many calls in flight; wait: until the
  first lease runs out, at most 1,000 ms, as calls mostly end sooner), 'requests' or 'tokens' (wait: until the limit
  admits it), or 'line' (jobs held back before this call's wait in line: wait until the first of them is due to call
  again, and 250 ms more). When the circuit is open and its probe is due, this call is the probe: it is reserved, and
  the other calls wait one more probe interval for its outcome.

  The line: a job's call held back for want of room ('concurrency', 'requests', 'tokens', or 'line') joins the line
  when not in it, and holds its place for its wait and LINE_GRACE_MS more (the time its job takes to be handed back,
  dispatched again and call again), renewed each time it is held back. Only the first job in line may be reserved; its
  reservation takes it out of the line. A job whose place ran out leaves the line as it comes first. A call for no job
  waits behind the line without joining it. Without the line, a fresh job, which reaches the budget sooner than one
  resuming after a hand-back, would take every freed call from the jobs fair dispatch put first.

  Every call renews the expiry of the three keys: a budget no call asked for a day (BUDGET_IDLE_MS) leaves Redis.
]]
--- @include "nowMs"
--- @include "llmBudget"

-- How long past its wait a job held back keeps its place in line, ms: its hand-back, its dispatch once the queue's
-- hold ends, and its resumption before it calls again, on a busy machine.
local LINE_GRACE_MS = 3000
-- How long a job behind others in line waits past the time the first is due to call again, ms.
local LINE_STEP_MS = 250
-- How long a budget's keys outlive the last call that asked it, ms: a day. A budget of an endpoint or model no longer
-- used leaves Redis then, with whatever places in line it still held; one used again starts full, its provider's
-- limits learnt again from the next call's headers.
local BUDGET_IDLE_MS = 86400000

local function reserve()
    local now = nowMs()
    local state = redis.call('HMGET', KEYS[1], 'requestsTat', 'tokensTat', 'pausedUntil', 'providerRequests',
        'providerTokens', 'unavailableSince', 'probeMs', 'openUntil', 'prober', 'tokensCorrections')
    local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
    for _, lease in ipairs(expired) do
        redis.call('ZREM', KEYS[2], lease)
        redis.call('HDEL', KEYS[1], 'reserved:' .. lease)
    end
    local pausedUntil = tonumber(state[3])
    local unavailableSince = tonumber(state[6])
    local probeMs = tonumber(state[7])
    local openUntil = tonumber(state[8]) or 0
    local waiting = (pausedUntil and pausedUntil > now) or (probeMs and openUntil > now)
    if waiting and unavailableSince and now - unavailableSince >= tonumber(ARGV[7]) then
        return {0, 0, 'unavailable'}
    end
    if pausedUntil and pausedUntil > now then
        return {0, pausedUntil - now, 'paused'}
    end
    if probeMs and openUntil > now then
        -- While a probe is under way, look again within a second: its success closes the circuit at once.
        return {0, state[9] and math.min(openUntil - now, 1000) or openUntil - now, 'open'}
    end
    local caller = ARGV[8] or ''
    -- The first job in line whose place still holds (those whose place ran out leave it), and until when it holds (ms);
    -- nil when nobody is in line.
    local function firstInLine()
        while true do
            local first = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
            if not first then
                return nil
            end
            local holds = tonumber(redis.call('HGET', KEYS[1], 'line:' .. first)) or 0
            if holds > now then
                return first, holds
            end
            redis.call('ZREM', KEYS[3], first)
            redis.call('HDEL', KEYS[1], 'line:' .. first)
        end
    end
    -- Held back: the call's job joins the line (or keeps its place), for its wait and the grace.
    local function heldBack(wait, reason)
        if caller ~= '' then
            redis.call('ZADD', KEYS[3], 'NX', now, caller)
            redis.call('HSET', KEYS[1], 'line:' .. caller, now + wait + LINE_GRACE_MS)
        end
        return {0, wait, reason}
    end
    local first, firstHolds = firstInLine()
    if first and first ~= caller then
        -- Until the first in line is due to call again (its place holds the grace past that), and a little more.
        return heldBack(math.max(firstHolds - LINE_GRACE_MS - now, 0) + LINE_STEP_MS, 'line')
    end
    local most = tonumber(ARGV[3])
    if most > 0 and redis.call('ZCARD', KEYS[2]) >= most then
        local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
        return heldBack(math.min(math.max(tonumber(oldest[2]) - now, 1), 1000), 'concurrency')
    end
    local requestLimit = limitInForce(ARGV[1], state[4])
    local tokenLimit = limitInForce(ARGV[2], state[5])
    local tokens = tonumber(ARGV[4])
    local requestsTat, tokensTat
    local wait, reason = 0, nil
    if requestLimit > 0 then
        requestsTat = math.max(tonumber(state[1]) or now, now) + BUDGET_WINDOW_MS / requestLimit
        if requestsTat - now > BUDGET_WINDOW_MS then
            wait, reason = requestsTat - now - BUDGET_WINDOW_MS, 'requests'
        end
    end
    if tokenLimit > 0 then
        tokens = math.min(tokens, tokenLimit)
        tokensTat = math.max(tonumber(state[2]) or now, now) + tokens * BUDGET_WINDOW_MS / tokenLimit
        if tokensTat - now > BUDGET_WINDOW_MS and tokensTat - now - BUDGET_WINDOW_MS > wait then
            wait, reason = tokensTat - now - BUDGET_WINDOW_MS, 'tokens'
        end
    end
    if reason then
        return heldBack(math.ceil(wait), reason)
    end
    if first then
        redis.call('ZREM', KEYS[3], caller)
        redis.call('HDEL', KEYS[1], 'line:' .. caller)
    end
    if requestsTat then
        redis.call('HSET', KEYS[1], 'requestsTat', requestsTat)
    end
    if tokensTat then
        redis.call('HSET', KEYS[1], 'tokensTat', tokensTat)
    end
    if probeMs then
        redis.call('HSET', KEYS[1], 'openUntil', now + probeMs, 'prober', ARGV[5])
    end
    -- The tokens, and the provider's corrections so far: one after this replaced the reservation (settleLlmBudget).
    redis.call('HSET', KEYS[1], 'reserved:' .. ARGV[5], tokens .. ':' .. (state[10] or '0'))
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[6]), ARGV[5])
    return {1, requestLimit > 0 and budgetLeft(requestsTat, requestLimit, now) or -1,
        tokenLimit > 0 and budgetLeft(tokensTat, tokenLimit, now) or -1, (unavailableSince or probeMs) and 1 or 0}
end

local reply = reserve()
-- Every call renews the three keys' expiry (a key this call created too), at least twice its lease.
local keepMs = math.max(BUDGET_IDLE_MS, 2 * tonumber(ARGV[6]))
for i = 1, 3 do
    redis.call('PEXPIRE', KEYS[i], keepMs)
end
return reply

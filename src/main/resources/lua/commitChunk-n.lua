--[[
  Commits one chunk of a chunked job into the Redis sink: the chunk's writes, the cursor advance and the fencing
  check in one script, so each chunk is applied exactly once (the Redis twin of the chunk transaction of
  PostgresCursors.nextChunk). Nothing is written unless all of it is: the fence and every key's type are checked
  before the first write, and the commands allowed cannot fail after those checks (an
  INCRBY or HINCRBY past 2^63 is the one exception left).

  KEYS[1]   the job's cursor hash: cursor, fencingToken, attempt, chunksDone, itemsDone (claimed by claimCursor)
  KEYS[2..] the keys the chunk writes, all in KEYS[1]'s hash slot

  ARGV[1] the epoch's fencing token
  ARGV[2] the attempt's id (its lock token): under the token held, only the attempt that claimed it commits
  ARGV[3] the cursor the chunk starts from (the committed one)
  ARGV[4] the cursor after the chunk
  ARGV[5] the chunk's items (count)
  ARGV[6] the number of commands that follow
  ARGV[7..] the commands, each: name (RPUSH LPUSH LTRIM SADD ZADD HSET HINCRBY INCRBY SET XADD), index into
            KEYS, argument count n, then n arguments

  Returns {1} committed; {0, fencingToken, cursor} refused by the fence (a newer epoch, or another attempt under
  the same token, holds the cursor, or another chunk moved it), nothing written; {-15, key, type} a key holds another type, nothing written;
  {-16, name} a command that is not allowed, nothing written.
]]
local TYPES = {RPUSH = 'list', LPUSH = 'list', LTRIM = 'list', SADD = 'set', ZADD = 'zset', HSET = 'hash',
    HINCRBY = 'hash', INCRBY = 'string', SET = 'string', XADD = 'stream'}

local cursor = redis.call('HMGET', KEYS[1], 'fencingToken', 'cursor', 'attempt')
local held = tonumber(cursor[1] or '0')
local token = tonumber(ARGV[1])
if held == nil or held > token or (held == token and cursor[3] and cursor[3] ~= ARGV[2])
        or cursor[2] ~= ARGV[3] then
    return {0, held or 0, cursor[2] or ''}
end

local count = tonumber(ARGV[6])
local checked = {}
local i = 7
for _ = 1, count do
    local name, key, n = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
    local wanted = TYPES[name]
    if not wanted then
        return {-16, name}
    end
    local seen = checked[key]
    if seen == nil then
        local actual = redis.call('TYPE', KEYS[key])['ok']
        if actual ~= 'none' and actual ~= wanted then
            return {-15, KEYS[key], actual}
        end
        checked[key] = wanted
    elseif seen ~= wanted then
        return {-15, KEYS[key], seen}
    end
    if name == 'INCRBY' or name == 'HINCRBY' then
        local current = name == 'INCRBY' and redis.call('GET', KEYS[key]) or redis.call('HGET', KEYS[key], ARGV[i + 3])
        if current and not string.match(current, '^%-?%d+$') then
            return {-15, KEYS[key], 'not an integer'}
        end
    end
    i = i + 3 + n
end

i = 7
for _ = 1, count do
    local n = tonumber(ARGV[i + 2])
    redis.call(ARGV[i], KEYS[tonumber(ARGV[i + 1])], unpack(ARGV, i + 3, i + 2 + n))
    i = i + 3 + n
end
redis.call('HSET', KEYS[1], 'cursor', ARGV[4], 'fencingToken', ARGV[1], 'attempt', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'chunksDone', 1)
redis.call('HINCRBY', KEYS[1], 'itemsDone', ARGV[5])
return {1}

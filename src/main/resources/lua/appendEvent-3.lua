--[[
  Fenced append: adds an event to a job's event stream, and records a checkpoint with it, only if the writer's
  fencing token is the job's current token, its lock token is the one recorded at the job's activation (the
  same attempt), and the job is still active (Kleppmann's fencing token, checked where the write lands). The
  event and the checkpoint land together or not at all, so a checkpoint never disagrees with the events.
  A progress event also becomes the job's last progress and a 'progress' queue event.

  KEYS[1] job hash (its 'fencingToken' and 'lockToken' are the current epoch and attempt)
  KEYS[2] job event stream
  KEYS[3] queue event stream

  ARGV[1] fencing token of the writer (integer)
  ARGV[2] event type ('progress', or any non-terminal type)
  ARGV[3] event data in its stored form (StoredEvent in Java: JSON without 'status' and 'fencingToken', or an answer
          delta's counters)
  ARGV[4] maximum length of the job event stream (entries, approximate trimming)
  ARGV[5] '1' to store ARGV[6] as the job's last progress (and emit a queue event), '0' otherwise
  ARGV[6] progress (JSON)
  ARGV[7] job id
  ARGV[8] maximum length of the queue event stream (entries)
  ARGV[9] lock token of the writer's attempt
  ARGV[10] checkpoint to record with the event (JSON: the job's 'checkpoint', which the next run reads), or '' (or
          absent) for none; with ARGV[2] '' the checkpoint alone is written (no event)
  ARGV[11] the entry's text (an answer delta's text), or '' (or absent)

  Returns the stream entry id ('' when no event was written), or
    -1  the job does not exist
    -7  stale fencing token or attempt: a newer epoch, or another attempt, owns the job
    -9  the job is not active (finished, aborted, or handed back to the queue)
]]
--- @include "checkOwnership"
--- @include "appendJobEvent"
--- @include "queueEvent"

local code = checkOwnership(KEYS[1], ARGV[9], ARGV[1])
if code ~= 0 then
    return code
end
local checkpoint = ARGV[10] or ''
if checkpoint ~= '' then
    redis.call('HSET', KEYS[1], 'checkpoint', checkpoint)
end
if ARGV[2] == '' then
    return ''
end
if ARGV[5] == '1' then
    redis.call('HSET', KEYS[1], 'progress', ARGV[6])
    queueEvent(KEYS[3], ARGV[8], 'progress', ARGV[7], 'data', ARGV[6], 'fencingToken', ARGV[1])
end
return appendJobEvent(KEYS[2], ARGV[4], ARGV[2], ARGV[1], ARGV[3], ARGV[11])

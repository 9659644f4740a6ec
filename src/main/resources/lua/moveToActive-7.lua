--[[
  Activates up to maxJobs jobs for a worker, atomically per job: promotes due delayed jobs, takes ready
  jobs (wait list first, then the prioritized set), locks each one and increments its fencing token (a
  new epoch), and appends its 'started' event. Honours pause, the global rate limit and the global
  concurrency (see includes/activateJobs.lua).

  KEYS[1] wait list
  KEYS[2] active list
  KEYS[3] prioritized set
  KEYS[4] delayed set
  KEYS[5] marker set
  KEYS[6] meta hash
  KEYS[7] queue event stream

  ARGV[1] key prefix of the queue, 'fq:{name}:'
  ARGV[2] maximum number of jobs to activate (the worker's free slots)
  ARGV[3] lock token prefix (random per call; a job gets '<prefix>:<jobId>')
  ARGV[4] lock duration (ms)
  ARGV[5] worker id
  ARGV[6] maximum length of a job event stream (entries)
  ARGV[7] maximum length of the queue event stream (entries)

  Returns {code, now, extra, jobs...}: now is the Redis clock (µs since the epoch); code, extra and the
  job list {jobId, fencingToken, lockToken, {field, value, ...}, ...} as in activateJobs: 1 jobs
  activated (extra = next due time when fewer than ARGV[2] were ready, else -1), 0 none ready (extra =
  next due time or -1), -4 paused, -5 rate limited (extra = ms until the window resets), -10 global
  concurrency reached.
]]
--- @include "nowMs"
--- @include "activateJobs"

local now, nowText, nowMicros = nowMs()
local code, extra, jobs = activateJobs(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7],
    ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], now, nowText)
return activationReply({}, code, nowMicros, extra, jobs)

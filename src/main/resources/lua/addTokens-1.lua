--[[
  Counts the LLM tokens one attempt of a job spent, by how the attempt ended. Not fenced on purpose: the tokens of
  a run that lost its fence (a zombie) were spent all the same, and counting them is the point. Writes only the
  job hash's 'tokens:<outcome>:*' fields, which nothing else reads for the job's state; a job already removed is
  left alone.

  KEYS[1] job hash

  ARGV[1] outcome: result | failed | zombie | handed-back | revoked ('revoked' is recorded as 'aborted' when the
          job is aborted, else as 'zombie': a revoked run was either aborted or handed to another worker)
  ARGV[2] prompt tokens of the attempt
  ARGV[3] completion tokens of the attempt

  Returns the outcome recorded, or '' when the job no longer exists.
]]
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
    return ''
end
local outcome = ARGV[1]
if outcome == 'revoked' then
    outcome = state == 'aborted' and 'aborted' or 'zombie'
end
local prefix = 'tokens:' .. outcome .. ':'
redis.call('HINCRBY', KEYS[1], prefix .. 'attempts', 1)
redis.call('HINCRBY', KEYS[1], prefix .. 'prompt', ARGV[2])
redis.call('HINCRBY', KEYS[1], prefix .. 'completion', ARGV[3])
return outcome

--[[
  Adds a job to the queue, or returns the existing job for the same job id, idempotency key or
  deduplication id, and appends a 'waiting' (or 'delayed', 'waiting-children') queue event for a new job.
  Flows (BullMQ's parent and child jobs): a job added with a parent records the parent's job key and what its
  failure does to the parent; a job added with children starts in 'waiting-children', with every child key in
  its ':children' and ':dependencies' sets and each child's spec in the queue's pending-children hash, from
  which the service adds the children (in their own queues: FlowRelay) and to which it comes back after a crash.

  KEYS[1] wait list
  KEYS[2] delayed set
  KEYS[3] prioritized set
  KEYS[4] marker set
  KEYS[5] meta hash
  KEYS[6] job id counter
  KEYS[7] queue event stream
  KEYS[8] waiting-children set (score: when the job began to wait, ms)
  KEYS[9] pending-children hash (child job key -> the child's spec, JSON, until the child is added)

  ARGV[1]  key prefix of the queue, 'fq:{name}:'
  ARGV[2]  job id; '' lets the queue generate one from the counter
  ARGV[3]  job name
  ARGV[4]  data (JSON)
  ARGV[5]  options (JSON, stored for readers)
  ARGV[6]  attempts (count, >= 1)
  ARGV[7]  delay (ms, 0 = none)
  ARGV[8]  priority (0 = none, lower runs first)
  ARGV[9]  lifo ('1' | '0')
  ARGV[10] keep a per-job event stream ('1' | '0')
  ARGV[11] idempotency key; '' for none. Its key holds '<jobId> <sha1 of name and data>' (older versions wrote the
           job id alone, which any request matches)
  ARGV[12] idempotency key time to live (ms)
  ARGV[13] retention once completed, '<count>,<age ms>' (-1 = no limit); '' keeps the job
  ARGV[14] retention once failed, same form
  ARGV[15] deduplication id; '' for none
  ARGV[16] deduplication time to live (ms); 0 = until the job ends
  ARGV[17] timeout of one attempt (ms); 0 = none
  ARGV[18] maximum length of the queue event stream (entries)
  ARGV[19] parent's job key ('<prefix>job:<id>', maybe of another queue); '' for a job without a parent
  ARGV[20] what the job's failure does to its parent: 'fail' | 'ignore' | 'remove'
  ARGV[21] id of the job scheduler that produced the job; '' for none
  ARGV[22] the scheduler's tick the job is for (ms since the epoch); '' for none
  ARGV[23] W3C traceparent of the span that added the job (its trace: every attempt's span joins it); '' for none
  ARGV[24] the tenant the job belongs to (TenantIds in Java); '' for the default tenant, which stores no field
  ARGV[25...] two per child, for a parent added with its children: the child's job key, its spec (JSON)

  Returns {jobId, code}: 1 the job was added; 0 it already existed (same job id, or an idempotency key
  still within its time to live, given with the same name and data); 2 it was deduplicated (a job with the same
  deduplication id is live, and its id is returned); -15 nothing was added: the idempotency key is within its time to
  live for another request (another name or data), and the id of the job it was first used for is returned.
]]
--- @include "addJobCore"

return addJobCore(KEYS, ARGV)

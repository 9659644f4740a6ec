-- Issue 53: the operator console lists a queue's archived jobs of one outcome (completed; failed with aborted), newest
-- first, a page at a time, and counts them. This index serves both: a page of completed jobs is a backward walk of
-- the queue's completed entries that stops after the page (a Merge Append of each day's partition, newest first);
-- the failed and aborted ones are read from their two ranges; a count reads the queue's range of the index only.
-- Created on the partitioned table, so that PostgreSQL creates it on every partition, those of days to come included.
CREATE INDEX job_archive_by_outcome ON job_archive (queue, state, finished_on, job_id);

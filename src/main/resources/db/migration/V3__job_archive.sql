-- Issue 29: finished jobs move from Redis to this archive a grace period after they end (fq.archive.grace), and are
-- kept fq.archive.keep-for. One row per finished job: its Redis record and its whole event stream, in the form the
-- stream stored it (StoredEvent in Java), so that a replay from here gives the same SSE frames as one from Redis.
--
-- Partitioned by day of finished_on (PostgreSQL declarative partitioning): the archiver creates each day's partition
-- before it writes there (job_archive_yyyymmdd) and drops a whole partition once all of its jobs are older than
-- fq.archive.keep-for; rows are never deleted one by one.
--
-- Exactly once: a job finishes once per run of its id (finished_on, Redis clock, ms), and the primary key refuses a
-- second row for the same finishing, so that a retried, duplicated or zombie archive write is a no-op
-- (INSERT ... ON CONFLICT DO NOTHING).
CREATE TABLE job_archive (
    queue        text        NOT NULL,
    job_id       text        NOT NULL,
    finished_on  timestamptz NOT NULL,
    state        text        NOT NULL,
    archived_at  timestamptz NOT NULL DEFAULT now(),
    -- {"job": {hash field: value}, "processed": {...}, "failed": {...}, "children": [...]}: the job hash and, for a
    -- flow's parent, its children's values, failures and keys, all as Redis held them (strings).
    record       json        NOT NULL,
    -- [[entry id, type, token, data, text], ...] in stream order: every entry of the job's event stream.
    events       json        NOT NULL,
    PRIMARY KEY (queue, job_id, finished_on)
) PARTITION BY RANGE (finished_on);

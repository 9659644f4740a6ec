-- Schema of the bulk jobs' PostgreSQL sink (Flyway-managed; never edit a released migration, add one).

-- The subscribers of a channel: whom a fan-out notifies, walked in subscriber_id order (keyset pagination).
CREATE TABLE channel_subscriber (
    channel       text        NOT NULL,
    subscriber_id text        NOT NULL,
    added_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (channel, subscriber_id)
);

-- The notification center: one row per delivered notification. Deliberately no unique constraint on
-- (job_id, subscriber_id): exactly-once delivery comes from the fenced cursor, and a duplicate must stay visible.
CREATE TABLE notification (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel       text        NOT NULL,
    subscriber_id text        NOT NULL,
    job_id        text        NOT NULL,
    message       text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_by_subscriber ON notification (subscriber_id, id);

-- The push outbox: one row per push to send, drained by a push sender. No unique constraint either.
CREATE TABLE push_outbox (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subscriber_id text        NOT NULL,
    job_id        text        NOT NULL,
    payload       jsonb       NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- The cursor of each chunked job: the position after its last committed chunk, and the fencing token of the
-- epoch that committed it. A chunk commits only if its epoch's token is not older than this one and the cursor
-- is still where the chunk started (Kleppmann's fencing token, checked where the write lands).
CREATE TABLE bulk_cursor (
    job_id        text        PRIMARY KEY,
    cursor        text        NOT NULL,
    fencing_token bigint      NOT NULL,
    chunks_done   bigint      NOT NULL DEFAULT 0,
    items_done    bigint      NOT NULL DEFAULT 0,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

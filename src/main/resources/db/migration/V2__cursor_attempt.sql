-- Issue 10: the attempt (the lock token of the job's activation) that holds each cursor, beside its fencing token.
-- If Redis loses writes and hands a fencing token out twice, two attempts share a token; under the token held, only
-- the attempt that claimed the cursor advances it, so the older attempt's chunks are refused. NULL for a cursor
-- claimed before this column existed (any attempt under its token may then advance it, as before).
ALTER TABLE bulk_cursor ADD COLUMN attempt text;

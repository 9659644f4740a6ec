package dev.fencedqueue.archive;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.postgres.Database;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobState;

/**
 * The operator's reads of the archive ({@code job_archive}), over JDBC: a page of a queue's archived jobs of one
 * outcome, newest first, and their count. Blocking, so every method runs on a worker thread. Both read the index
 * {@code job_archive_by_outcome} ({@code V4__job_archive_by_outcome.sql}): a page of completed jobs walks it backwards
 * and stops after the page, whatever the archive's size.
 */
final class ArchiveListing {

    /** The states of each outcome the operator lists: aborted jobs are listed with the failed ones, as in Redis. */
    private static final String[] COMPLETED = {"completed"};
    private static final String[] FAILED = {"failed", "aborted"};
    private static final String PAGE = """
            SELECT job_id, record::text FROM job_archive
            WHERE queue = ? AND state = ANY (?) AND finished_on < ?
            ORDER BY finished_on DESC, job_id DESC OFFSET ? LIMIT ?""";
    private static final String COUNT = "SELECT count(*) FROM job_archive WHERE queue = ? AND state = ANY (?)";
    /** The latest time PostgreSQL's {@code timestamptz} holds, standing for "no bound". */
    private static final Instant NO_BOUND = Instant.parse("9999-12-31T00:00:00Z");

    private final Database database;
    private final ObjectMapper json;

    ArchiveListing(Database database, ObjectMapper json) {
        this.database = database;
        this.json = json;
    }

    /**
     * See {@link dev.fencedqueue.queue.JobArchive#finished}.
     *
     * @throws SQLException when PostgreSQL cannot be read, or a row is not the archive's JSON
     */
    List<Job> page(String queue, JobState state, long finishedBefore, int start, int count) throws SQLException {
        if (start < 0 || count < 1 || count > 1000) {
            throw new IllegalArgumentException("`start` must not be negative and `count` must be 1 to 1000");
        }
        try (Connection connection = database.connection();
                PreparedStatement page = connection.prepareStatement(PAGE)) {
            page.setString(1, queue);
            page.setArray(2, connection.createArrayOf("text", states(state)));
            page.setTimestamp(3, Timestamp.from(finishedBefore >= NO_BOUND.toEpochMilli() ? NO_BOUND
                    : Instant.ofEpochMilli(finishedBefore)));
            page.setInt(4, start);
            page.setInt(5, count);
            List<Job> jobs = new ArrayList<>(count);
            try (ResultSet rows = page.executeQuery()) {
                while (rows.next()) {
                    ArchiveTables.Record record = json.readValue(rows.getString(2), ArchiveTables.Record.class);
                    jobs.add(Job.fromHash(queue, rows.getString(1), record.job()));
                }
            } catch (JsonProcessingException e) {
                throw new SQLException("an archived job's record is not the archive's JSON: " + e.getOriginalMessage(), e);
            }
            return jobs;
        }
    }

    /**
     * See {@link dev.fencedqueue.queue.JobArchive#countFinished}, read now.
     *
     * @throws SQLException when PostgreSQL cannot be read
     */
    long count(String queue, JobState state) throws SQLException {
        try (Connection connection = database.connection();
                PreparedStatement count = connection.prepareStatement(COUNT)) {
            count.setString(1, queue);
            count.setArray(2, connection.createArrayOf("text", states(state)));
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private static String[] states(JobState state) {
        return switch (state) {
            case COMPLETED -> COMPLETED;
            case FAILED -> FAILED;
            default -> throw new IllegalArgumentException("the archive holds completed and failed jobs, not "
                    + state.value() + " ones");
        };
    }
}

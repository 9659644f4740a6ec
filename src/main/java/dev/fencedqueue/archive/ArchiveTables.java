package dev.fencedqueue.archive;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.postgres.Database;
import dev.fencedqueue.queue.ArchivedJob;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The archive's table ({@code job_archive}, {@code db/migration/V3__job_archive.sql}), over JDBC: blocking, so every
 * method runs on a worker or virtual thread. One row per finishing of a job; partitions by day (UTC) of
 * {@code finished_on}, created before the first write of their day and dropped whole once past the retention age.
 */
final class ArchiveTables {

    private static final String INSERT = """
            INSERT INTO job_archive (queue, job_id, finished_on, state, record, events)
            VALUES (?, ?, ?, ?, ?::json, ?::json)
            ON CONFLICT (queue, job_id, finished_on) DO NOTHING""";
    private static final String FIND = """
            SELECT finished_on, record::text, events::text FROM job_archive WHERE queue = ? AND job_id = ?
            ORDER BY finished_on DESC LIMIT 1""";
    private static final String PARTITIONS = """
            SELECT child.relname FROM pg_inherits
            JOIN pg_class parent ON parent.oid = pg_inherits.inhparent
            JOIN pg_class child ON child.oid = pg_inherits.inhrelid
            WHERE parent.relname = 'job_archive'""";
    /** Serializes the creation of partitions across instances (an advisory lock, held to the end of its transaction). */
    private static final String PARTITION_LOCK = "SELECT pg_advisory_xact_lock(hashtext('job_archive partitions'))";
    private static final String PARTITION_PREFIX = "job_archive_";
    /** The SQL state of a row that no partition takes (check_violation). */
    private static final String NO_PARTITION = "23514";
    private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;
    private static final TypeReference<Record> RECORD = new TypeReference<>() {
    };
    private static final TypeReference<List<List<Object>>> EVENTS = new TypeReference<>() {
    };

    /** The {@code record} column: the job's Redis keys but its stream. */
    @RegisterForReflection
    record Record(Map<String, String> job, Map<String, String> processed, Map<String, String> failed,
            List<String> children) {
    }

    private final Database database;
    private final ObjectMapper json;
    /** The days whose partition this instance knows to exist. */
    private final Set<LocalDate> partitions = ConcurrentHashMap.newKeySet();

    ArchiveTables(Database database, ObjectMapper json) {
        this.database = database;
        this.json = json;
    }

    /**
     * Writes jobs in one transaction, each at most once: a job already archived for the same finishing is left as it
     * is (the primary key decides, so a retried or duplicated write by any instance is a no-op).
     *
     * @param jobs the jobs, must not be {@code null}
     * @return how many rows were written (jobs not archived before)
     * @throws SQLException when PostgreSQL refuses or cannot be reached (nothing is written)
     */
    int insert(Collection<ArchivedJob> jobs) throws SQLException {
        if (jobs.isEmpty()) {
            return 0;
        }
        TreeSet<LocalDate> days = new TreeSet<>();
        jobs.forEach(job -> days.add(day(job.finishedOn())));
        ensurePartitions(days);
        try {
            return write(jobs);
        } catch (SQLException e) {
            if (!NO_PARTITION.equals(e.getSQLState()) && !(e.getNextException() != null
                    && NO_PARTITION.equals(e.getNextException().getSQLState()))) {
                throw e;
            }
            // A day's partition was dropped since it was known here (another instance dropped an old day): again.
            partitions.removeAll(days);
            ensurePartitions(days);
            return write(jobs);
        }
    }

    private int write(Collection<ArchivedJob> jobs) throws SQLException {
        try (Connection connection = database.connection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
                for (ArchivedJob job : jobs) {
                    insert.setString(1, job.queue());
                    insert.setString(2, job.jobId());
                    insert.setTimestamp(3, Timestamp.from(Instant.ofEpochMilli(job.finishedOn())));
                    insert.setString(4, job.hash().getOrDefault("state", "completed"));
                    insert.setString(5, write(new Record(job.hash(), job.childrenValues(), job.failedChildren(),
                            job.children())));
                    insert.setString(6, write(events(job)));
                    insert.addBatch();
                }
                int written = 0;
                for (int count : insert.executeBatch()) {
                    written += Math.max(0, count);
                }
                connection.commit();
                return written;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        }
    }

    /**
     * @param queue the job's queue
     * @param jobId the job id
     * @return the job's latest archived finishing, or empty
     * @throws SQLException when PostgreSQL cannot be read
     */
    Optional<ArchivedJob> find(String queue, String jobId) throws SQLException {
        try (Connection connection = database.connection();
                PreparedStatement find = connection.prepareStatement(FIND)) {
            find.setString(1, queue);
            find.setString(2, jobId);
            try (ResultSet row = find.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                Record record = json.readValue(row.getString(2), RECORD);
                List<ArchivedJob.StreamEntry> events = new ArrayList<>();
                for (List<Object> entry : json.readValue(row.getString(3), EVENTS)) {
                    @SuppressWarnings("unchecked")
                    Map<String, String> fields = (Map<String, String>) entry.get(1);
                    events.add(new ArchivedJob.StreamEntry((String) entry.get(0), fields));
                }
                return Optional.of(new ArchivedJob(queue, jobId, row.getTimestamp(1).getTime(), record.job(),
                        orEmpty(record.processed()), orEmpty(record.failed()),
                        record.children() == null ? List.of() : record.children(), events));
            } catch (JsonProcessingException e) {
                throw new SQLException("an archived job's record is not the archive's JSON: "
                        + e.getOriginalMessage(), e);
            }
        }
    }

    /**
     * Drops the partitions of the days that ended before {@code cutoff}: every job in them finished before it.
     *
     * @param cutoff the oldest finish time kept
     * @return the names of the dropped partitions
     * @throws SQLException when PostgreSQL refuses or cannot be reached
     */
    List<String> dropBefore(Instant cutoff) throws SQLException {
        LocalDate firstKept = LocalDate.ofInstant(cutoff, ZoneOffset.UTC);
        List<String> dropped = new ArrayList<>();
        try (Connection connection = database.connection(); Statement statement = connection.createStatement()) {
            List<String> names = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery(PARTITIONS)) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
            for (String name : names) {
                LocalDate day = dayOf(name);
                if (day != null && day.isBefore(firstKept)) {
                    statement.execute("DROP TABLE IF EXISTS " + name);
                    partitions.remove(day);
                    dropped.add(name);
                }
            }
        }
        return dropped;
    }

    private void ensurePartitions(Collection<LocalDate> days) throws SQLException {
        if (partitions.containsAll(days)) {
            return;
        }
        try (Connection connection = database.connection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            try {
                statement.execute(PARTITION_LOCK);
                for (LocalDate day : days) {
                    statement.execute("CREATE TABLE IF NOT EXISTS " + PARTITION_PREFIX + day.format(DAY)
                            + " PARTITION OF job_archive FOR VALUES FROM ('" + day + " 00:00:00+00') TO ('"
                            + day.plusDays(1) + " 00:00:00+00')");
                }
                connection.commit();
            } catch (SQLException e) {
                connection.rollback();
                throw e;
            }
        }
        partitions.addAll(days);
    }

    private static LocalDate day(long epochMillis) {
        return LocalDate.ofInstant(Instant.ofEpochMilli(epochMillis), ZoneOffset.UTC);
    }

    /** @return the day of a partition named {@code job_archive_yyyymmdd}, or {@code null} for another name */
    static LocalDate dayOf(String partition) {
        if (!partition.startsWith(PARTITION_PREFIX)) {
            return null;
        }
        try {
            return LocalDate.parse(partition.substring(PARTITION_PREFIX.length()), DAY);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static List<List<Object>> events(ArchivedJob job) {
        List<List<Object>> events = new ArrayList<>(job.events().size());
        job.events().forEach(entry -> events.add(List.of(entry.id(), entry.fields())));
        return events;
    }

    private String write(Object value) throws SQLException {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new SQLException("a job cannot be written as the archive's JSON: " + e.getOriginalMessage(), e);
        }
    }

    private static Map<String, String> orEmpty(Map<String, String> map) {
        return map == null ? new LinkedHashMap<>() : map;
    }
}

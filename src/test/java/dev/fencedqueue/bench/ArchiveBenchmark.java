package dev.fencedqueue.bench;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencedqueue.queue.Queues;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.archive.Archiver;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.postgres.Database;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What finished and streaming jobs cost Redis, and how the archive reads (not a test:
 * {@code ./mvnw -Pbench test -Dtest=ArchiveBenchmark}; see BENCHMARKS.md, "Redis holds live work only"). In one
 * service with Redis and PostgreSQL, OpenAI's protocol to the simulator:
 * <ul>
 * <li>bytes per character while a 2,000-token answer streams at 20 ms a token with the default batching, from the
 * job's stream as it stood before its {@code completed} event;</li>
 * <li>bytes of Redis per finished research job (2,000 tokens) while Redis keeps it for its retention (the archive's
 * grace period) and once it moved, from {@code used_memory} over {@code bench.jobs} jobs (less the queue's event
 * stream, a bounded cost of the queue);</li>
 * <li>the time to replay a job of 2,000 events (one per token) over SSE from Redis and from the archive: cold, the
 * first replay of each of five jobs after they moved (read from PostgreSQL), and warm, {@code bench.replays} replays
 * of one (the archive's reads kept a short while); medians;</li>
 * <li>jobs archived per second beside the rate at which the same service finishes such jobs (20 workers' slots, the
 * simulator at full speed): the archive must keep up with the fleet.</li>
 * </ul>
 */
@QuarkusTest
@TestProfile(ArchiveBenchmark.Profile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class ArchiveBenchmark extends ResearchTestSupport {

    private static final int JOBS = Integer.getInteger("bench.jobs", 200);
    private static final int REPLAYS = Integer.getInteger("bench.replays", 10);
    private static final int REPLAYED_JOBS = 5;

    /** The archive on, moved only by the benchmark (an hour's grace); OpenAI's protocol to the simulator. */
    public static class Profile extends BenchmarkProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(super.getConfigOverrides());
            config.putAll(Map.of("fq.archive.grace", "1h", "fq.archive.interval", "1h", "fq.llm.protocol", "openai",
                    "fq.simulator.answer.words", "2000", "fq.worker.concurrency", "20"));
            return config;
        }
    }

    @Inject
    Archiver archiver;

    @Inject
    QueueInspector redis;

    @Inject
    Queues queues;

    @Inject
    ResearchConfig researchConfig;

    @Inject
    Database database;

    @Test
    void measuresWhatJobsCostRedisAndHowTheArchiveReads() {
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("archive_environment", Runtime.getRuntime().availableProcessors(), "cpus",
                "\"jobs\": " + JOBS + ", \"loadAvg1m\": " + BenchContext.loadAverage());
        startResearchWorker("bench-archive");

        // 1. While an answer streams: the real pace and the default batching (fq.llm.stream.delta-interval).
        settings.adjust("fq.simulator.answer.token-interval", "20ms");
        String streamed = finish(startJob("streaming cost"), Duration.ofMinutes(3));
        double perCharacter = (double) redis.streamBytesBeforeItsLastEntry(keys().events(streamed)) / status(streamed).getString("result.text")
                .length();
        report.record("archive_stream_bytes_per_char", perCharacter, "bytes/char", 1, "\"target\": 2");

        // 2. Finished jobs kept for their retention, then moved.
        settings.adjust("fq.simulator.answer.token-interval", "1ms");
        archiver.round(Duration.ZERO).await().atMost(Duration.ofMinutes(1)); // the job above: out of the baseline
        long before = usedMemory();
        long started = System.nanoTime();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            ids.add(startJob("kept " + i));
        }
        ids.forEach(id -> finish(id, Duration.ofMinutes(5)));
        double finishRate = JOBS / ((System.nanoTime() - started) / 1e9);
        long kept = usedMemory();
        long moveStarted = System.nanoTime();
        int moved = 0;
        while (moved < JOBS) {
            int round = archiver.round(Duration.ZERO).await().atMost(Duration.ofMinutes(5));
            if (round == 0) {
                break;
            }
            moved += round;
        }
        double archiveRate = moved / ((System.nanoTime() - moveStarted) / 1e9);
        long after = usedMemory();
        report.record("archive_redis_bytes_per_finished_job_kept", (double) (kept - before) / JOBS, "bytes", 1,
                "\"what\": \"before: Redis keeps finished jobs\"");
        report.record("archive_redis_bytes_per_finished_job_moved", (double) (after - before) / JOBS, "bytes", 1,
                "\"target\": 1024");
        report.record("archive_jobs_per_second", archiveRate, "jobs/s", 1, "\"moved\": " + moved);
        report.record("archive_research_jobs_finished_per_second", finishRate, "jobs/s", 1,
                "\"what\": \"the same service finishing 2,000-token jobs, 20 slots, simulator at full speed\"");
        report.record("archive_rate_ratio", archiveRate / finishRate, "ratio", 1, "");
        report.record("archive_postgres_bytes_per_job", rowBytes(), "bytes", 1,
                "\"what\": \"pg_column_size of a row: record and events as stored (TOAST-compressed)\"");

        // 3. Replay of about 2,000 events, from Redis and from the archive.
        settings.adjust("fq.llm.stream.delta-interval", "1h");
        settings.adjust("fq.llm.stream.delta-chars", "1"); // an event per token: 2,000 events
        List<String> replayed = new ArrayList<>();
        for (int i = 0; i < REPLAYED_JOBS; i++) {
            replayed.add(startJob("replayed " + i));
        }
        replayed.forEach(id -> finish(id, Duration.ofMinutes(3)));
        int events = given().get("/research/history/" + replayed.get(0)).then().extract().jsonPath().getList("$").size();
        List<Double> fromRedis = replays(replayed.get(0));
        replayed.forEach(this::moveOne);
        // Cold: each job's first replay from the archive (read from PostgreSQL; the code paths warm from the first).
        List<Double> cold = new ArrayList<>();
        for (String id : replayed) {
            long first = System.nanoTime();
            replay(id);
            cold.add((System.nanoTime() - first) / 1e6);
        }
        List<Double> fromArchive = replays(replayed.get(0));
        String fields = "\"events\": " + events;
        double redisMs = BenchReport.median(fromRedis);
        report.record("archive_replay_ms_redis", redisMs, "ms", 1, fields);
        report.record("archive_replay_ms_archive_cold", BenchReport.median(cold), "ms", 1, fields
                + ", \"each\": " + cold.stream().map(BenchReport::number).toList());
        report.record("archive_replay_ms_archive", BenchReport.median(fromArchive), "ms", 1, fields);
        report.record("archive_replay_ratio", BenchReport.median(fromArchive) / redisMs, "ratio", 1, "\"target\": 2");
        report.record("archive_replay_ratio_cold", BenchReport.median(cold) / redisMs, "ratio", 1, "\"target\": 2");
        report.medians();
    }

    /** @return the mean size of an archived job's row as PostgreSQL stores it (its values compressed by TOAST) */
    private double rowBytes() {
        try (Connection connection = database.connection(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT avg(pg_column_size(job_archive.*)) FROM job_archive")) {
            row.next();
            return row.getDouble(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private QueueKeys keys() {
        return queues.keys(researchConfig.queue());
    }

    private String finish(String jobId, Duration within) {
        await().atMost(within).pollInterval(Duration.ofMillis(50))
                .until(() -> "completed".equals(status(jobId).getString("state")));
        return jobId;
    }

    private void moveOne(String jobId) {
        await().atMost(Duration.ofMinutes(1)).until(() -> {
            archiver.round(Duration.ZERO).await().atMost(Duration.ofMinutes(1));
            return redis.send(Request.cmd(Command.EXISTS).arg(keys().job(jobId))).toLong() == 0;
        });
    }

    private List<Double> replays(String jobId) {
        List<Double> millis = new ArrayList<>();
        for (int i = 0; i < REPLAYS; i++) {
            long started = System.nanoTime();
            replay(jobId);
            millis.add((System.nanoTime() - started) / 1e6);
        }
        return millis;
    }

    private static void replay(String jobId) {
        String body = given().accept("text/event-stream").get("/research/stream/" + jobId).then().statusCode(200)
                .extract().asString();
        assertThat(body).contains("event: completed");
    }

    /**
     * @return Redis's {@code used_memory} less the queue's event stream (bounded by
     *         {@code fq.events.queue-stream-max-length}, whatever the jobs kept: a cost of the queue, not of a job)
     */
    private long usedMemory() {
        String info = redis.send(Request.cmd(Command.INFO).arg("memory")).toString();
        long used = info.lines().filter(line -> line.startsWith("used_memory:")).map(line -> Long.parseLong(line
                .substring("used_memory:".length()).trim())).findFirst().orElseThrow();
        Response queueStream = redis.send(Request.cmd(Command.MEMORY).arg("USAGE").arg(keys().events()).arg("SAMPLES")
                .arg(0));
        return used - (queueStream == null ? 0 : queueStream.toLong());
    }
}

package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.dev.EmbeddedPostgresServer;
import dev.fencedqueue.testing.NotificationRows;
import dev.fencedqueue.testing.PostgresProcess;
import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Finished jobs move to PostgreSQL exactly once, whatever fails meanwhile, with real processes: the packaged service
 * archives while PostgreSQL is stopped and started again, while the archiving instance is killed ({@code SIGKILL})
 * and another takes over, and after Redis lost the writes that dropped archived jobs (killed, restarted from an older
 * snapshot): every job ends up in the archive exactly once, gone from Redis, and reads the same.
 */
class ArchiveProcessIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(config());

    private PostgresProcess postgres;
    private NotificationRows rows;

    private static Map<String, String> config() {
        Map<String, String> config = new HashMap<>(ProcessFleet.SHORT_LOCKS);
        config.putAll(Map.of("fq.archive.grace", "1s", "fq.archive.interval", "200ms", "fq.archive.batch", "5",
                "fq.simulator.research.steps", "3", "fq.simulator.research.step-interval", "20ms"));
        return config;
    }

    @BeforeEach
    void startPostgres() {
        postgres = PostgresProcess.start();
        rows = NotificationRows.on(postgres.jdbcUrl());
    }

    @AfterEach
    void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    private ServiceProcess launch(String workerId) {
        return launch(workerId, Duration.ofSeconds(1));
    }

    /** @param grace the process's {@code fq.archive.grace} */
    private ServiceProcess launch(String workerId, Duration grace) {
        return fleet.launch(workerId, Map.of("quarkus.datasource.jdbc.url", postgres.jdbcUrl(),
                "quarkus.datasource.username", EmbeddedPostgresServer.USER,
                "quarkus.datasource.password", EmbeddedPostgresServer.PASSWORD,
                "fq.archive.grace", grace.toMillis() + "ms"));
    }

    private static List<String> startJobs(ServiceProcess service, int count, String query) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(service.request().contentType(ContentType.JSON).body(Map.of("query", query + " " + i))
                    .post("/research/start").then().statusCode(202).extract().path("jobId"));
        }
        return ids;
    }

    private boolean inRedis(String jobId) {
        return fleet.redis().call("EXISTS", "fq:{deep-research}:job:" + jobId).toLong() == 1;
    }

    private void awaitArchivedOnce(ServiceProcess service, List<String> ids) {
        await("every job moved to the archive").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                .until(() -> ids.stream().noneMatch(this::inRedis));
        for (String id : ids) {
            assertThat(rows.rows("job_archive", id)).as("archive rows of " + id).isEqualTo(1);
            service.request().get("/research/status/" + id).then().statusCode(200);
        }
    }

    @Test
    void finishedJobsWaitInRedisWhilePostgresIsDownAndMoveOnceItIsBack() {
        ServiceProcess service = launch("archiver-A");
        List<String> first = startJobs(service, 5, "before the outage");
        awaitArchivedOnce(service, first);

        postgres.stop();
        List<String> during = startJobs(service, 5, "during the outage");
        await("the jobs finish while PostgreSQL is down").atMost(TIMEOUT).until(() -> during.stream().allMatch(id ->
                "completed".equals(service.request().get("/research/status/" + id).jsonPath().getString("state"))));
        await("their grace period is over; they stay in Redis").pollDelay(Duration.ofSeconds(2)).atMost(TIMEOUT)
                .until(() -> during.stream().allMatch(this::inRedis));
        String history = service.request().get("/research/history/" + during.get(0)).then().statusCode(200).extract()
                .asString();

        postgres.restart();
        awaitArchivedOnce(service, during);
        assertThat(service.request().get("/research/history/" + during.get(0)).then().extract().asString())
                .isEqualTo(history);
    }

    @Test
    void aKilledArchiverLeavesNothingLostAndNothingTwice() {
        ServiceProcess a = launch("archiver-A");
        List<String> ids = startJobs(a, 40, "killed mid-archive");
        await("A has archived some of the jobs").atMost(TIMEOUT).pollInterval(Duration.ofMillis(20))
                .until(() -> ids.stream().filter(id -> rows.rows("job_archive", id) > 0).count() >= 5);
        a.kill();

        ServiceProcess b = launch("archiver-B");
        awaitArchivedOnce(b, ids);
    }

    @Test
    void jobsThatRedisForgetsWereDroppedAreArchivedOnceMore() {
        // A runs the jobs and keeps them (an hour's grace): the snapshot holds all of them, finished.
        ServiceProcess a = launch("runner-A", Duration.ofHours(1));
        List<String> ids = startJobs(a, 5, "dropped then restored");
        await("the jobs finish").atMost(TIMEOUT).until(() -> ids.stream().allMatch(id ->
                "completed".equals(a.request().get("/research/status/" + id).jsonPath().getString("state"))));
        fleet.redis().call("SAVE");
        a.close();
        ServiceProcess b = launch("archiver-B");
        awaitArchivedOnce(b, ids);

        // Redis dies and comes back from the snapshot: the drops are lost, the jobs are back as finished. B sleeps
        // (SIGSTOP) meanwhile, so that the jobs are seen back before it moves them again, then finds its connections
        // gone and the jobs that Redis forgot it had dropped.
        b.freeze();
        try {
            fleet.redis().kill();
            fleet.redis().restart();
            assertThat(ids.stream().filter(this::inRedis)).as("the snapshot brought them back").hasSize(ids.size());
        } finally {
            b.thaw();
        }
        awaitArchivedOnce(b, ids);
    }
}

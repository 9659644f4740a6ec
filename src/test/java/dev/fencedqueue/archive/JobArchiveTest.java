package dev.fencedqueue.archive;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencedqueue.queue.Queues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.events.JobEventStore;
import dev.fencedqueue.postgres.Database;
import dev.fencedqueue.queue.ArchivedJob;
import dev.fencedqueue.queue.QueueFigures;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.Timeouts;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Finished jobs move from Redis to PostgreSQL, exactly once, and read the same from there: status, history, valid
 * history and the SSE stream, byte for byte, with {@code Last-Event-ID} across the move; old days' partitions are
 * dropped whole.
 */
@QuarkusTest
@TestProfile(ArchiveProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class JobArchiveTest extends ResearchTestSupport {

    @Inject
    Archiver archiver;

    @Inject
    PostgresJobArchive archive;

    @Inject
    JobEventStore store;

    @Inject
    QueueInspector redis;

    @Inject
    Queues queues;

    @Inject
    QueueFigures figures;

    @Inject
    ResearchConfig researchConfig;

    @Inject
    Database database;

    private QueueKeys keys() {
        return queues.keys(researchConfig.queue());
    }

    private String finishedJob(String query) {
        startResearchWorker("worker-" + query.replace(' ', '-'));
        String jobId = startJob(query);
        await().atMost(Timeouts.TIMEOUT).until(() -> "completed".equals(status(jobId).getString("state")));
        return jobId;
    }

    /** Moves every finished job now (the grace period of the test profile is an hour), until {@code jobId} moved. */
    private void move(String jobId) {
        await("the job moves to the archive").atMost(Timeouts.TIMEOUT).until(() -> {
            archiver.round(Duration.ZERO).await().atMost(Timeouts.TIMEOUT);
            return redis.send(Request.cmd(Command.EXISTS).arg(keys().job(jobId))).toLong() == 0;
        });
    }

    private static String stream(String jobId, String lastEventId) {
        var request = given().accept("text/event-stream");
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        return request.get("/research/stream/" + jobId).then().statusCode(200).extract().asString();
    }

    private static String body(String path) {
        return given().get(path).then().statusCode(200).extract().asString();
    }

    @Test
    void aFinishedJobReadsTheSameFromTheArchiveAsFromRedis() {
        String jobId = finishedJob("read me later");
        List<Map<String, Object>> events = validHistory(jobId);
        String middle = (String) events.get(events.size() / 2).get("id");
        String status = body("/research/status/" + jobId);
        String history = body("/research/history/" + jobId);
        String validHistory = body("/research/valid-history/" + jobId);
        String frames = stream(jobId, null);
        String framesAfterMiddle = stream(jobId, middle);

        move(jobId);

        assertThat(redis.send(Request.cmd(Command.EXISTS).arg(keys().events(jobId))).toLong()).isZero();
        assertThat(body("/research/status/" + jobId)).isEqualTo(status);
        assertThat(body("/research/history/" + jobId)).isEqualTo(history);
        assertThat(body("/research/valid-history/" + jobId)).isEqualTo(validHistory);
        assertThat(stream(jobId, null)).as("the SSE frames, byte for byte").isEqualTo(frames);
        assertThat(stream(jobId, middle)).as("after a Last-Event-ID").isEqualTo(framesAfterMiddle);
        assertThat(frames).contains("event: completed").contains("\"workerId\":\"worker-read-me-later\"");
        String last = (String) events.get(events.size() - 1).get("id");
        // A reader that has the end is told so, from the archive too.
        given().header("Last-Event-ID", last).get("/research/stream/" + jobId).then().statusCode(204);
    }

    @Test
    void aJobTakenOverAndResumedReadsTheSameFromTheArchive() {
        settings.adjust("fq.simulator.answer.token-interval", "20ms");
        Worker workerA = startResearchWorker("worker-A");
        String jobId = startJob("taken over, then archived");
        await("A has written part of the answer").atMost(Timeouts.TIMEOUT)
                .until(() -> status(jobId).getMap("progress") != null
                        && ((Number) status(jobId).getMap("progress").getOrDefault("completionTokens", 0)).intValue() > 20);
        simulatorAtFullSpeed();
        takeOver(workerA, worker(research, "worker-B"), jobId);
        await().atMost(Timeouts.TIMEOUT).until(() -> "completed".equals(status(jobId).getString("state")));
        String history = body("/research/history/" + jobId);
        String validHistory = body("/research/valid-history/" + jobId);
        String frames = stream(jobId, null);
        assertThat(frames).as("a takeover that continued").contains("event: resume").contains("worker-A")
                .contains("worker-B");
        assertThat(history).as("A's events of its run, written before B took over, are kept").contains("worker-A");

        move(jobId);

        assertThat(body("/research/history/" + jobId)).isEqualTo(history);
        assertThat(body("/research/valid-history/" + jobId)).isEqualTo(validHistory);
        assertThat(stream(jobId, null)).isEqualTo(frames);
    }

    @Test
    void aReaderHalfwayThroughTheStreamWhenTheJobMovesGoesOnWithNoGapAndNoRepeat() {
        String jobId = finishedJob("moved while read");
        List<JobEvent> whole = store.readAll(keys(), jobId, null).await().atMost(Timeouts.TIMEOUT);
        List<JobEvent> read = new ArrayList<>(store.read(keys(), jobId, null, 5).await().atMost(Timeouts.TIMEOUT));

        move(jobId);

        read.addAll(store.readAll(keys(), jobId, read.get(read.size() - 1).id()).await().atMost(Timeouts.TIMEOUT));
        assertThat(read).as("five events from Redis, the rest from the archive").isEqualTo(whole);
        assertThat(whole.size()).isGreaterThan(10);
    }

    @Test
    void eachFinishingIsArchivedOnceHoweverOftenItIsWritten() throws Exception {
        String jobId = finishedJob("archived once");
        ArchivedJob before = archive.find(keys().queue(), jobId).await().atMost(Timeouts.TIMEOUT).orElse(null);
        assertThat(before).as("not archived before its grace period").isNull();

        move(jobId);
        ArchivedJob archived = archive.find(keys().queue(), jobId).await().atMost(Timeouts.TIMEOUT).orElseThrow();
        // A zombie archiver, or a retry after a crash between the commit and the drop, writes the same job again.
        assertThat(archive.tables().insert(List.of(archived, archived))).as("rows written again").isZero();
        archiver.round(Duration.ZERO).await().atMost(Timeouts.TIMEOUT);

        assertThat(rows(jobId)).isEqualTo(1);
        assertThat(archived.events()).isNotEmpty();
        assertThat(archived.hash()).containsEntry("state", "completed").containsKey("worker:" + archived.hash()
                .get("fencingToken"));
    }

    @Test
    void aParentReadsItsChildrenFromTheArchive() {
        startResearchWorker("worker-flow");
        String parentId = "flow-" + UUID.randomUUID().toString().substring(0, 8);
        String queue = keys().queue();
        Map<String, Object> flow = Map.of("queue", queue, "name", "research", "data", Map.of("query", "a report"),
                "options", Map.of("jobId", parentId), "children", List.of(
                        Map.of("queue", queue, "name", "research", "key", "north", "data", Map.of("query", "north")),
                        Map.of("queue", queue, "name", "research", "key", "south", "data", Map.of("query", "south"))));
        admin().contentType(ContentType.JSON).body(flow).post("/admin/flows").then().statusCode(201);
        await().atMost(Timeouts.TIMEOUT).until(() -> "completed".equals(status(parentId).getString("state")));
        String view = admin().get("/admin/queues/" + queue + "/jobs/" + parentId).then().statusCode(200).extract()
                .asString();
        assertThat(view).contains(parentId + ":north", parentId + ":south");

        move(parentId);
        move(parentId + ":north");
        move(parentId + ":south");

        String archived = admin().get("/admin/queues/" + queue + "/jobs/" + parentId).then().statusCode(200).extract()
                .asString();
        assertThat(archived).as("marked as read from the archive").endsWith(",\"archived\":true}");
        assertThat(archived.substring(0, archived.length() - ",\"archived\":true}".length()) + "}")
                .as("the parent, its children's states and values, all from the archive").isEqualTo(view);
    }

    @Test
    void abortingAnArchivedJobSaysItHasEnded() {
        String jobId = finishedJob("too late to abort");
        move(jobId);

        given().post("/research/abort/" + jobId).then().statusCode(409);
        given().post("/research/abort/never-was-" + jobId).then().statusCode(404);
    }

    @Test
    void theArchiveLagCountsFromWhenTheOldestFinishedJobBecameDueAndIsZeroOnceItMoved() {
        String jobId = finishedJob("lagging behind");

        assertThat(archiveLag(Duration.ofHours(1))).as("finished within its grace period: not due yet").isZero();
        await().atMost(Timeouts.TIMEOUT).until(() -> archiveLag(Duration.ZERO) > 0);
        double lag = archiveLag(Duration.ZERO);
        await("the lag grows while nothing moves").atMost(Timeouts.TIMEOUT).until(() -> archiveLag(Duration.ZERO) > lag);

        move(jobId);
        assertThat(archiveLag(Duration.ZERO)).as("nothing left to move").isZero();
    }

    /** @return {@code fq_archive_lag_seconds} of the research queue, were its grace period {@code grace} */
    private double archiveLag(Duration grace) {
        return figures.archiveLag(keys(), grace).await().atMost(Timeouts.TIMEOUT);
    }

    private static io.restassured.specification.RequestSpecification admin() {
        return given().auth().preemptive().basic("admin", "admin");
    }

    @Test
    void dropsADaysPartitionWholeOnceAllItsJobsArePastTheRetentionAge() throws Exception {
        long fortyDaysAgo = Instant.now().minus(Duration.ofDays(40)).toEpochMilli();
        ArchivedJob old = new ArchivedJob(keys().queue(), "old-" + fortyDaysAgo, fortyDaysAgo, Map.of("state",
                "completed", "finishedOn", Long.toString(fortyDaysAgo), "timestamp", Long.toString(fortyDaysAgo)),
                Map.of(), Map.of(), List.of(), List.of());
        assertThat(archive.tables().insert(List.of(old))).isEqualTo(1);
        String jobId = finishedJob("kept for now");
        move(jobId);

        String oldPartition = "job_archive_" + LocalDate.ofInstant(Instant.ofEpochMilli(fortyDaysAgo), ZoneOffset.UTC)
                .format(DateTimeFormatter.BASIC_ISO_DATE);
        // The insert made that day's partition; the archiver's own rounds drop old partitions too (the first one at
        // start-up, maybe after the insert): either may drop it.
        List<String> dropped = archive.tables().dropBefore(Instant.now().minus(Duration.ofDays(30)));

        assertThat(dropped).isSubsetOf(oldPartition);
        assertThat(partitions()).doesNotContain(oldPartition).isNotEmpty();
        assertThat(rows(old.jobId())).isZero();
        assertThat(rows(jobId)).as("today's partition stays").isEqualTo(1);
        given().get("/research/status/" + jobId).then().statusCode(200);
    }

    /** @return the names of the archive's partitions */
    private List<String> partitions() throws Exception {
        List<String> names = new ArrayList<>();
        try (Connection connection = database.connection(); PreparedStatement list = connection.prepareStatement(
                "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = 'job_archive'::regclass");
                ResultSet rows = list.executeQuery()) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }

    private int rows(String jobId) throws Exception {
        try (Connection connection = database.connection();
                PreparedStatement count = connection.prepareStatement(
                        "SELECT count(*) FROM job_archive WHERE job_id = ?")) {
            count.setString(1, jobId);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }
}

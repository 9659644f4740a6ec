package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.FanOutRows;
import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * A bulk fan-out's promise with real processes on one Redis (and one PostgreSQL for that sink): a fan-out to 100,000
 * subscribers is aborted by an operator, resumed, loses the instance running it to {@code kill -9}, and has the
 * next one frozen with SIGSTOP until a third takes it over, then woken; afterwards every subscriber has exactly one
 * notification and one push-outbox entry, and the cursor is at the end. A subclass per sink.
 */
abstract class FanOutScenario {

    static final int SUBSCRIBERS = 100_000;
    private static final Duration STEP = Duration.ofSeconds(60);

    /**
     * @param more the sink's own settings
     * @return the settings of every process of the scenario
     */
    static Map<String, String> config(Map<String, String> more) {
        Map<String, String> config = new java.util.HashMap<>(Map.of(
                "fq.worker.lock.duration", "1s",
                "fq.worker.lock.renew-interval", "300ms",
                "fq.worker.stalled.interval", "500ms",
                "fq.worker.drain-delay", "1s",
                // The job stalls twice on purpose (kill -9, then SIGSTOP): BullMQ's default of one stall would fail it.
                "fq.worker.stalled.max-count", "3",
                "fq.admin.password", "admin"));
        config.putAll(more);
        return config;
    }

    /** @return the test's processes */
    abstract ProcessFleet fleet();

    /** @return the sink's channels and what the fan-out wrote into it, during the test */
    abstract FanOutRows rows();

    @Test
    void everySubscriberGetsExactlyOneNotificationThroughAbortResumeKillAndAZombie() {
        ProcessFleet fleet = fleet();
        ServiceProcess a = fleet.start("fan-A", Map.of(), Map.of());
        ServiceProcess b = fleet.start("fan-B", Map.of(), Map.of());
        fleet.awaitReady(a, b);
        String channel = rows().channelWith(SUBSCRIBERS);

        String jobId = a.request().contentType(ContentType.JSON)
                .body(Map.of("message", "exactly once", "chunkSize", 500, "throttle", Map.of("pauseBetweenChunksMs", 50)))
                .post("/notifications/channels/" + channel + "/fan-out").then().statusCode(202).extract().path("jobId");
        awaitChunks(a, jobId, 10);
        long firstEpoch = status(a, jobId).getLong("fencingToken");
        assertThat(firstEpoch).isPositive();

        // 1. An operator's abort stops it at a chunk boundary, cursor kept; a resume continues in a new epoch.
        admin(a).post("/admin/queues/notifications/jobs/" + jobId + "/abort").then().statusCode(202);
        await("aborted at a chunk boundary").atMost(STEP).until(() -> "aborted".equals(status(a, jobId).getString("state")));
        JsonPath aborted = status(a, jobId);
        assertThat(rows().notifications(channel, jobId)).as("rows when aborted")
                .isEqualTo(aborted.getLong("itemsDone"));
        assertThat(aborted.getLong("itemsDone") % 500).isZero();
        admin(a).post("/admin/queues/notifications/jobs/" + jobId + "/resume").then().statusCode(200);
        long resumedEpoch = await("resumed in a new epoch").atMost(STEP).until(() -> status(a, jobId),
                status -> status.getLong("fencingToken") > firstEpoch
                        && status.getLong("itemsDone") > aborted.getLong("itemsDone"))
                .getLong("fencingToken");

        // 2. kill -9 of the instance running it: the other one takes it over from the committed cursor.
        ServiceProcess running = java.util.Objects.requireNonNull(runner(jobId, a, b), "a or b runs the job");
        ServiceProcess survivor = running == a ? b : a;
        long beforeKill = status(survivor, jobId).getLong("itemsDone");
        running.kill();
        await("taken over after the kill").atMost(STEP).until(() -> status(survivor, jobId),
                status -> status.getLong("fencingToken") > resumedEpoch && status.getLong("itemsDone") > beforeKill);

        // 3. SIGSTOP the instance running it until a third one takes it over, then SIGCONT it: a zombie.
        ServiceProcess c = fleet.launch("fan-C", Map.of());
        ServiceProcess zombie = java.util.Objects.requireNonNull(runner(jobId, survivor, c), "one of them runs it");
        ServiceProcess successor = zombie == survivor ? c : survivor;
        long tokenOfZombie = status(successor, jobId).getLong("fencingToken");
        zombie.freeze();
        await("taken over from the frozen instance").atMost(STEP)
                .until(() -> status(successor, jobId).getLong("fencingToken") > tokenOfZombie
                        && runner(jobId, successor) == successor);
        zombie.thaw();

        admin(successor).contentType(ContentType.JSON).body(Map.of("pauseBetweenChunksMs", 0))
                .put("/admin/queues/notifications/jobs/" + jobId + "/throttle").then().statusCode(200);
        await("the fan-out completes").atMost(Duration.ofMinutes(3))
                .until(() -> "completed".equals(status(successor, jobId).getString("state")));

        JsonPath done = status(successor, jobId);
        assertThat(done.getString("cursor")).isEqualTo(String.format("s-%06d", SUBSCRIBERS - 1));
        assertThat(done.getLong("itemsDone")).isEqualTo(SUBSCRIBERS);
        assertThat(rows().notifications(channel, jobId)).isEqualTo(SUBSCRIBERS);
        assertThat(rows().outbox(channel, jobId)).isEqualTo(SUBSCRIBERS);
        assertThat(rows().notExactlyOnce(channel, jobId)).as("subscribers without exactly one of each").isZero();
        // The zombie learnt it lost the job: its next chunk was refused by the fence, or it was cancelled first (a
        // revoke notice or a lock renewal) and rolled back the chunk it had open.
        await("the zombie stopped").atMost(STEP).until(() -> List.of("the sink's fence refused chunk",
                "was revoked; cancelling it", "lost job " + jobId).stream().anyMatch(zombie.log()::contains));
        System.out.printf(getClass().getSimpleName() + ": %d subscribers, final epoch %d, zombie epoch %d%n", SUBSCRIBERS,
                done.getLong("fencingToken"), tokenOfZombie);
    }

    private static void awaitChunks(ServiceProcess process, String jobId, int chunks) {
        await(chunks + " chunks committed").atMost(STEP).until(() -> status(process, jobId).getLong("chunksDone") >= chunks);
    }

    /** @return the process whose worker runs the job's current epoch, or {@code null} when none of these does */
    private static ServiceProcess runner(String jobId, ServiceProcess... candidates) {
        String workerId = status(candidates[0], jobId).getString("workerId");
        return List.of(candidates).stream().filter(p -> p.toString().startsWith(workerId + " ")).findFirst()
                .orElse(null);
    }

    private static JsonPath status(ServiceProcess process, String jobId) {
        return process.request().get("/notifications/jobs/" + jobId).then().statusCode(200).extract().jsonPath();
    }

    private static io.restassured.specification.RequestSpecification admin(ServiceProcess process) {
        return process.request().auth().preemptive().basic("admin", "admin");
    }
}

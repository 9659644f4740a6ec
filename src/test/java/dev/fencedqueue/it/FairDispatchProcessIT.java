package dev.fencedqueue.it;

import static dev.fencedqueue.testing.Timeouts.JOB_END;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fair dispatch with two real processes of the packaged service sharing one Redis, both serving the no-op queue: a
 * tenant's 200 jobs and another tenant's one, all waiting when the queue resumes; the second tenant's job starts among
 * the first, not after the 200 (FIFO's order, the order they were added in). And a tenant's limits, set through one
 * process, hold for both at once: one tenant's jobs run one at a time, another's start two per second, while a third
 * tenant's jobs take the slots.
 */
class FairDispatchProcessIT {

    private static final String QUEUE = "fair";
    private static final int FLOOD = 200;
    private static final Map<String, String> ENVIRONMENT = Map.of("FQ_ADMIN_USERNAME", "ops", "FQ_ADMIN_PASSWORD",
            "fair-it");

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(ProcessFleet.SHORT_LOCKS);

    @Test
    void twoProcessesStartANewcomersJobAheadOfAnotherTenantsFlood() {
        ServiceProcess[] both = startPaused();
        ServiceProcess a = both[0];
        ServiceProcess b = both[1];
        // Children of parents in a queue nobody serves: the way the operator API adds many jobs in one request.
        addFlow(a, "flood", FLOOD);
        addFlow(a, "newcomer", 1);
        await("every job waiting").atMost(TIMEOUT).until(() -> total(b, "paused") == FLOOD + 1);

        admin(b).post("/admin/queues/" + QUEUE + "/resume").then().statusCode(200);
        await("every job completed").atMost(JOB_END).until(() -> total(b, "completed") == FLOOD + 1);

        List<Long> flood = new ArrayList<>();
        long newcomer = -1;
        for (Map<String, Object> job : completed(b)) {
            long processedOn = ((Number) job.get("processedOn")).longValue();
            if ("newcomer".equals(job.get("tenant"))) {
                newcomer = processedOn;
            } else {
                flood.add(processedOn);
            }
        }
        Collections.sort(flood);
        long newcomerStarted = newcomer;
        assertThat(flood.stream().filter(started -> started < newcomerStarted).count())
                .as("flood jobs started before the newcomer's (in the order they were added: %d)", FLOOD)
                .isLessThan(20);
    }

    @Test
    void twoProcessesHoldATenantToItsConcurrencyAndRateLimitsTogether() {
        ServiceProcess[] both = startPaused();
        ServiceProcess a = both[0];
        ServiceProcess b = both[1];
        admin(a).contentType(ContentType.JSON).body(Map.of("concurrency", 1)).put("/admin/tenants/serial").then()
                .statusCode(200);
        admin(a).contentType(ContentType.JSON).body(Map.of("rateLimit", Map.of("max", 2, "duration", 1000)))
                .put("/admin/tenants/paced").then().statusCode(200);
        addFlow(a, "serial", 8);
        addFlow(a, "paced", 6);
        addFlow(a, "free", 40);
        await("every job waiting").atMost(TIMEOUT).until(() -> total(b, "paused") == 54);

        admin(b).post("/admin/queues/" + QUEUE + "/resume").then().statusCode(200);
        await("every job completed").atMost(JOB_END).until(() -> total(b, "completed") == 54);

        List<Map<String, Object>> jobs = completed(b);
        assertThat(jobs.stream().map(job -> ((String) job.get("workerId")).startsWith("proc-A")).distinct().count())
                .as("both processes ran jobs").isEqualTo(2);
        List<long[]> serial = jobs.stream().filter(job -> "serial".equals(job.get("tenant")))
                .map(job -> new long[] {millis(job, "processedOn"), millis(job, "finishedOn")})
                .sorted(java.util.Comparator.comparingLong(run -> run[0])).toList();
        for (int i = 1; i < serial.size(); i++) {
            assertThat(serial.get(i)[0]).as("serial's job %d started once the one before ended", i)
                    .isGreaterThanOrEqualTo(serial.get(i - 1)[1]);
        }
        List<Long> paced = jobs.stream().filter(job -> "paced".equals(job.get("tenant")))
                .map(job -> millis(job, "processedOn")).sorted().toList();
        // The limiter's windows: each opens with the first start after the previous one closed.
        List<List<Long>> windows = new ArrayList<>();
        for (long start : paced) {
            if (windows.isEmpty() || start >= windows.get(windows.size() - 1).get(0) + 1000) {
                windows.add(new ArrayList<>());
            }
            windows.get(windows.size() - 1).add(start);
        }
        assertThat(windows).as("paced's starts %s", paced).hasSizeGreaterThanOrEqualTo(3)
                .allSatisfy(window -> assertThat(window).hasSizeLessThanOrEqualTo(2));

        // Each process adds its workers' slot time to Redis every 10 s: the shares of the last minute then show.
        // Read one after the other while a process may add its time: asserted once consistent.
        await("the tenants' shares of slots").atMost(Duration.ofSeconds(40)).untilAsserted(() -> {
            assertThat(slotShare(a, "free")).isPositive();
            assertThat(slotShare(a, "free") + slotShare(b, "serial") + slotShare(a, "paced"))
                    .as("the three tenants held every slot").isCloseTo(1.0, within(0.01));
        });
    }

    /** @return the tenant's share of the queue's slots in the last minute, 0 when the view shows none */
    private static double slotShare(ServiceProcess process, String tenant) {
        Number share = admin(process).get("/admin/tenants/" + tenant).then().statusCode(200).extract().jsonPath()
                .get("jobs." + QUEUE + ".slotShare");
        return share == null ? 0 : share.doubleValue();
    }

    /** @return two processes serving the no-op queue, ready, the queue paused (so that jobs wait until it resumes) */
    private ServiceProcess[] startPaused() {
        Map<String, String> config = Map.of("fq.worker.noop-queue", QUEUE);
        ServiceProcess a = fleet.start("proc-A", config, ENVIRONMENT);
        ServiceProcess b = fleet.start("proc-B", config, ENVIRONMENT);
        fleet.awaitReady(a, b);
        admin(a).post("/admin/queues/" + QUEUE + "/pause").then().statusCode(200);
        return new ServiceProcess[] {a, b};
    }

    private static long millis(Map<String, Object> job, String field) {
        return ((Number) job.get(field)).longValue();
    }

    private static void addFlow(ServiceProcess process, String tenant, int children) {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < children; i++) {
            jobs.add(Map.of("queue", QUEUE, "name", "job"));
        }
        Map<String, Object> flow = new HashMap<>();
        flow.put("queue", "parents");
        flow.put("name", tenant);
        flow.put("options", Map.of("tenant", tenant));
        flow.put("children", jobs);
        admin(process).contentType(ContentType.JSON).body(flow).post("/admin/flows").then().statusCode(201);
    }

    private static long total(ServiceProcess process, String state) {
        return admin(process).get("/admin/queues/" + QUEUE + "/jobs?state=" + state + "&count=1").then().statusCode(200)
                .extract().jsonPath().getLong("total");
    }

    private static List<Map<String, Object>> completed(ServiceProcess process) {
        JsonPath page = admin(process).get("/admin/queues/" + QUEUE + "/jobs?state=completed&count=1000").then()
                .statusCode(200).extract().jsonPath();
        return page.getList("jobs");
    }

    private static RequestSpecification admin(ServiceProcess process) {
        return process.request().auth().preemptive().basic("ops", "fair-it");
    }
}

package dev.fencedqueue.it;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job scheduler with two real processes of the packaged service sharing one Redis, both ticking it: every tick
 * produces exactly one job over many ticks, also when one process is killed with {@code kill -9} between ticks (none
 * is lost, none doubled). Jobs run in the no-op queue, which both serve.
 */
class SchedulerProcessIT {

    private static final String QUEUE = "ticks";
    private static final long EVERY = 300;
    private static final Map<String, String> ENVIRONMENT = Map.of("FQ_ADMIN_USERNAME", "ops", "FQ_ADMIN_PASSWORD",
            "scheduler-it");

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(ProcessFleet.SHORT_LOCKS);

    @Test
    void twoProcessesProduceOneJobPerTickAndAKilledOneLosesNoneAndDoublesNone() {
        // A tick every 300 ms, below the operator API's sane minimum (1 s), so that many ticks pass quickly.
        Map<String, String> config = Map.of("fq.worker.noop-queue", QUEUE, "fq.worker.scheduler.min-every", "100ms");
        ServiceProcess a = fleet.start("proc-A", config, ENVIRONMENT);
        ServiceProcess b = fleet.start("proc-B", config, ENVIRONMENT);
        fleet.awaitReady(a, b);
        admin(a).contentType(ContentType.JSON).body(Map.of("every", EVERY, "template", Map.of("queue", QUEUE,
                "name", "tick"))).put("/admin/schedulers/every-300").then().statusCode(200);
        await("ticks while both run").atMost(TIMEOUT).until(() -> ticks(b) >= 10);

        a.kill();
        long afterKill = ticks(b);
        await("ticks after A was killed").atMost(Duration.ofSeconds(20)).until(() -> ticks(b) >= afterKill + 10);
        admin(b).post("/admin/schedulers/every-300/pause").then().statusCode(200);
        long ticks = ticks(b);

        List<Long> produced = await().atMost(TIMEOUT).until(() -> jobTicks(b), list -> list.size() == ticks);
        assertThat(produced).as("one job per tick").doesNotHaveDuplicates();
        for (int i = 1; i < produced.size(); i++) {
            assertThat(produced.get(i) - produced.get(i - 1)).as("no tick lost between %d and %d", produced.get(i - 1),
                    produced.get(i)).isEqualTo(EVERY);
        }
        assertThat(admin(b).get("/admin/queues/" + QUEUE + "/jobs/every-300:" + produced.get(0)).then().statusCode(200)
                .extract().jsonPath().getString("schedulerId")).isEqualTo("every-300");
    }

    private static long ticks(ServiceProcess process) {
        return admin(process).get("/admin/schedulers/every-300").then().statusCode(200).extract().jsonPath()
                .getLong("ticks");
    }

    /** @return the ticks of the scheduler's jobs in every state, in order */
    private static List<Long> jobTicks(ServiceProcess process) {
        TreeSet<Long> ticks = new TreeSet<>();
        List<Long> all = new ArrayList<>();
        for (String state : List.of("completed", "active", "waiting", "failed")) {
            List<String> ids = admin(process).get("/admin/queues/" + QUEUE + "/jobs?state=" + state + "&count=1000")
                    .then().statusCode(200).extract().jsonPath().getList("jobs.jobId");
            for (String id : ids) {
                long tick = Long.parseLong(id.substring("every-300:".length()));
                all.add(tick);
                ticks.add(tick);
            }
        }
        return all.size() == ticks.size() ? new ArrayList<>(ticks) : all;
    }

    private static RequestSpecification admin(ServiceProcess process) {
        return process.request().auth().preemptive().basic("ops", "scheduler-it");
    }
}

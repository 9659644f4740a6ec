package dev.fencedqueue.api.admin;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;

import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * A tenant's share of slots in the last minute ({@code GET /admin/tenants/{id}}, {@code jobs.<queue>.slotShare}): the
 * slot time its jobs held in the queue, fleet-wide, over every tenant's, as the workers add it to Redis when they stop
 * and every 10 s.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class TenantSlotShareTest extends QueueTestSupport {

    @Test
    void aTenantsShareOfSlotsIsTheSlotTimeItsJobsHeld() {
        String heavy = "heavy-" + System.nanoTime();
        String light = "light-" + System.nanoTime();
        List<String> heavyJobs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            heavyJobs.add(add(JobOptions.defaults().withTenant(heavy)));
        }
        add(JobOptions.defaults().withTenant(light));
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker running = workers.start(processor, TestWorkers.options("w-1").concurrency(4).build());
        await().atMost(TIMEOUT).until(() -> processor.started() == 4);
        // Another worker keeps the queue served (so listed in the view) once the first one stopped.
        workers.start(ProbeProcessor.held(queue.name()), TestWorkers.options("w-2").build());
        assertThat(tenant(heavy).getInt(use("running"))).isEqualTo(3);

        // The four jobs hold their slots for the same time, a lock renewal at least; the stop adds the worker's tally.
        awaitLockRenewed(heavyJobs.get(0), 1);
        for (int i = 0; i < 4; i++) {
            processor.attempt(i).complete("done");
        }
        await().atMost(TIMEOUT).until(() -> running.stats().completed() == 4);
        manager.stop(running).await().atMost(TIMEOUT);

        JsonPath after = tenant(heavy);
        assertThat(after.getInt(use("running"))).isZero();
        assertThat(after.getDouble(use("slotShare"))).as("3 of 4 slots").isCloseTo(0.75, within(0.1));
        assertThat(tenant(light).getDouble(use("slotShare"))).as("1 of 4 slots").isCloseTo(0.25, within(0.1));
        assertThat(tenant("idle-" + System.nanoTime()).getDouble(use("slotShare"))).as("a tenant that ran nothing")
                .isZero();
    }

    private String use(String field) {
        return "jobs.'" + queue.name() + "'." + field;
    }

    private static JsonPath tenant(String id) {
        return AdminApi.admin().get("/admin/tenants/" + id).then().statusCode(200).extract().jsonPath();
    }
}

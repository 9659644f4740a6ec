package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.flow.FlowProducer;
import dev.fencedqueue.scheduler.JobSchedulers;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Jobs that become ready later than their add under fair dispatch: a delayed job once due, a flow's parent once its
 * children ended, a job scheduler's tick. Each one joins its own tenant's ready jobs and takes that tenant's turn beside
 * another tenant's flood (under FIFO it would wait behind all of it).
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class FairDispatchKindsTest extends FairDispatchSupport {

    @Inject
    ObjectMapper json;

    @Inject
    FlowProducer flows;

    @Inject
    JobSchedulers schedulers;

    @Test
    void aDelayedJobTakesItsTenantsTurnOnceDue() {
        addJobs("flood", 30);
        activate(10);
        String late = add(JobOptions.defaults().withTenant("late").withDelay(Duration.ofMillis(1)));
        assertThat(redis.job(queue, late).state()).isEqualTo(JobState.DELAYED);
        long due = redis.job(queue, late).timestamp() + 1;
        await().atMost(TIMEOUT).until(() -> redis.redisTimeMillis() > due);

        assertThat(activate(2)).as("promoted into its tenant's jobs by the activation, and next").contains(late);
        // Its tenant was charged for it: still among the backlogged ones, or (its one job taken) out of them with usage.
        assertThat(redis.send(Request.cmd(Command.ZSCORE).arg(queue.keys().tenantsReady()).arg("late")) != null
                || redis.send(Request.cmd(Command.HGET).arg(queue.keys().prefix() + "tenants:usage").arg("late")) != null)
                .as("charged to its own tenant").isTrue();
    }

    @Test
    void aParentWhoseChildrenEndedTakesItsTenantsTurn() {
        addJobs("flood", 30);
        activate(10);
        String childQueue = queue.name() + "-children";
        FlowJob flow = FlowJob.of(queue.name(), "parent", null).withOptions(JobOptions.defaults().withTenant("family"))
                .withChildren(List.of(FlowJob.of(childQueue, "child", null)));
        String parent = flows.add(flow).await().atMost(TIMEOUT).root().jobId();
        workers.start(ProbeProcessor.of(childQueue, context -> Uni.createFrom().item("done")),
                TestWorkers.options("children").build());

        await("the parent waits again").atMost(TIMEOUT)
                .until(() -> queue.getTenantJobs("family").await().atMost(TIMEOUT).ready() == 1);

        assertThat(activate(2)).as("its tenant's turn, not behind the flood's 20").contains(parent);
    }

    @Test
    void aSchedulersJobTakesItsTemplatesTenantsTurn() {
        addJobs("flood", 30);
        activate(10);
        String id = "fair-" + UUID.randomUUID().toString().substring(0, 8);
        schedulers.upsert(id, json.valueToTree(Map.of("every", 3_600_000, "template", Map.of("queue",
                queue.name(), "name", "report", "options", Map.of("tenant", "reports"))))).await().atMost(TIMEOUT);
        try {
            String tick = schedulers.runNow(id).await().atMost(TIMEOUT);

            assertThat(queue.getTenantJobs("reports").await().atMost(TIMEOUT).ready()).isEqualTo(1);
            assertThat(activate(2)).as("its tenant's turn, not behind the flood's 20").contains(tick);
        } finally {
            schedulers.remove(id).await().atMost(TIMEOUT);
        }
    }
}

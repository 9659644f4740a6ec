package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.flow.FlowProducer;
import dev.fencedqueue.scheduler.JobSchedulers;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Every job belongs to a tenant: the one its options name, {@code default} without one (and then its hash holds no
 * field); a flow's children without one take their parent's, also those a running job adds; a scheduler's jobs take
 * their template's; retries and delays keep it.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class JobTenantsTest extends QueueTestSupport {

    @Inject
    FlowProducer flows;

    @Inject
    JobSchedulers schedulers;

    @Inject
    ObjectMapper json;

    @Test
    void aJobRecordsItsTenantAndOneWithoutBelongsToTheDefaultTenantWithNoField() {
        String acme = add(JobOptions.defaults().withTenant("acme"));
        String plain = add(JobOptions.defaults());
        String named = add(JobOptions.defaults().withTenant(TenantIds.DEFAULT));

        assertThat(redis.job(queue, acme).tenant()).isEqualTo("acme");
        assertThat(redis.job(queue, plain).tenant()).isEqualTo(TenantIds.DEFAULT);
        assertThat(redis.hash(queue.keys().job(acme))).containsEntry("tenant", "acme");
        assertThat(redis.hash(queue.keys().job(plain))).doesNotContainKey("tenant");
        assertThat(redis.hash(queue.keys().job(named))).as("the default tenant is stored as no field")
                .doesNotContainKey("tenant");
    }

    @Test
    void refusesATenantIdThatCouldNotNameAKeyOrALabel() {
        for (String bad : List.of("", "two words", "{acme}", "a/b", "x".repeat(TenantIds.MAX_LENGTH + 1))) {
            assertThatThrownBy(() -> JobOptions.defaults().withTenant(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("`tenant` must be 1 to 64");
        }
        assertThat(JobOptions.defaults().withTenant("alice@example.com").tenant()).isEqualTo("alice@example.com");
        assertThatThrownBy(() -> JobOptionsJson.read(json.valueToTree(Map.of("tenant", "a b")), "options"))
                .hasMessageStartingWith("`options.tenant`");
    }

    @Test
    void aFlowsChildrenTakeTheirParentsTenantUnlessTheyNameTheirOwn() {
        FlowJob flow = FlowJob.of(queue.name(), "parent", null).withOptions(JobOptions.defaults().withTenant("acme"))
                .withChildren(List.of(
                        FlowJob.of(queue.name(), "child", null).withKey("inherits").withChildren(List.of(
                                FlowJob.of(queue.name(), "grandchild", null).withKey("deep"))),
                        FlowJob.of(queue.name(), "child", null).withKey("own")
                                .withOptions(JobOptions.defaults().withTenant("globex"))));

        String root = flows.add(flow).await().atMost(TIMEOUT).root().jobId();

        assertThat(redis.job(queue, root).tenant()).isEqualTo("acme");
        await().atMost(TIMEOUT).until(() -> redis.job(queue, root + ":inherits:deep") != null
                && redis.job(queue, root + ":own") != null);
        assertThat(redis.job(queue, root + ":inherits").tenant()).isEqualTo("acme");
        assertThat(redis.job(queue, root + ":inherits:deep").tenant()).isEqualTo("acme");
        assertThat(redis.job(queue, root + ":own").tenant()).isEqualTo("globex");
    }

    @Test
    void childrenARunningJobAddsTakeItsTenant() {
        ProbeProcessor held = ProbeProcessor.held(queue.name());
        workers.start(held, TestWorkers.options("planner").build());
        String jobId = add(JobOptions.defaults().withTenant("acme"));
        ProbeProcessor.Attempt attempt = awaitAttempt(held, 0);
        assertThat(attempt.context().job().tenant()).as("the run knows its tenant").isEqualTo("acme");

        attempt.context().addChildren(List.of(FlowJob.of(queue.name(), "leaf", null).withKey("x"))).await()
                .atMost(TIMEOUT);

        await().atMost(TIMEOUT).until(() -> redis.job(queue, jobId + ":x") != null);
        assertThat(redis.job(queue, jobId + ":x").tenant()).isEqualTo("acme");
    }

    @Test
    void aSchedulersJobsTakeItsTemplatesTenant() {
        String id = "tenant-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        schedulers.upsert(id, json.valueToTree(Map.of("every", 3_600_000, "template", Map.of("queue",
                queue.name(), "name", "report", "options", Map.of("tenant", "acme"))))).await().atMost(TIMEOUT);

        String jobId = schedulers.runNow(id).await().atMost(TIMEOUT);

        assertThat(redis.job(queue, jobId).tenant()).isEqualTo("acme");
        assertThat(schedulers.get(id).await().atMost(TIMEOUT).template().path("options").path("tenant").asText())
                .isEqualTo("acme");
        schedulers.remove(id).await().atMost(TIMEOUT);
    }

    @Test
    void aRetriedJobKeepsItsTenant() {
        ProbeProcessor failingOnce = ProbeProcessor.of(queue.name(), context -> context.job().attemptsStarted() == 1
                ? Uni.createFrom().failure(new IllegalStateException("fails once"))
                : Uni.createFrom().item(context.job().tenant()));
        workers.start(failingOnce, TestWorkers.options("retrier").build());

        String jobId = add(JobOptions.defaults().withTenant("acme").withAttempts(2)
                .withBackoff(Backoff.fixed(Duration.ofMillis(50))));

        Job done = awaitJob(jobId, job -> job.state() == JobState.COMPLETED);
        assertThat(done.attemptsMade()).isEqualTo(2);
        assertThat(done.tenant()).isEqualTo("acme");
        assertThat(done.returnValue()).as("the second run knew it too").isEqualTo("\"acme\"");
    }
}

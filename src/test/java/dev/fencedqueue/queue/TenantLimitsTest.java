package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.fencedqueue.tenancy.TenantSettings;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import org.junit.jupiter.api.Test;

/**
 * A tenant's limits under fair dispatch ({@code tenantLimits.lua}): at its concurrency limit or its rate limit it is held
 * out of dispatch while other tenants take the slots, and goes on once one of its jobs ended, its window ended or its
 * limit was lifted; with activations in one script call (exact) and with a real worker.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class TenantLimitsTest extends FairDispatchSupport {

    @Test
    void aTenantAtItsConcurrencyLimitStartsNoMoreUntilOneOfItsJobsEnds() {
        String capped = "capped-" + UUID.randomUUID();
        tenants.put(capped, new TenantSettings(null, 2, null, null)).await().atMost(TIMEOUT);
        try {
            tenants.syncWeights(List.of(queue.name())).await().atMost(TIMEOUT);
            addJobs(capped, 5);
            addJobs("zulu", 5);
            String callId = "test-" + UUID.randomUUID() + ":";
            Response running = activateReply(6, callId);
            List<String> started = new ArrayList<>();
            for (int i = 3; i + 2 < running.size(); i += 3) {
                started.add(running.get(i).toString());
            }
            assertThat(tenantsOf(started)).as("two of the capped tenant's, the other slots to zulu")
                    .containsExactlyInAnyOrder(capped, capped, "zulu", "zulu", "zulu", "zulu");
            assertThat(tenantsOf(activate(3))).as("the capped tenant is held at its limit").containsExactly("zulu");
            assertThat(queue.getTenantJobs(capped).await().atMost(TIMEOUT)).isEqualTo(new JobQueue.TenantJobs(3, 2));

            // One of its jobs ends: the same call's activation lets the tenant back and starts its next job.
            int index = tenantsOf(started).indexOf(capped);
            String jobId = started.get(index);
            Response reply = complete(jobId, callId + ":" + jobId, running.get(4 + 3 * index).toString(), 1);
            assertThat(tenantOf.get(reply.get(4).toString())).isEqualTo(capped);
            assertThat(queue.getTenantJobs(capped).await().atMost(TIMEOUT)).isEqualTo(new JobQueue.TenantJobs(2, 2));
            assertThat(activate(3)).as("held again at 2 running").isEmpty();
        } finally {
            tenants.remove(capped).await().atMost(TIMEOUT);
        }
    }


    @Test
    void aWorkerHoldsATenantAtItsLimitAndLiftingTheLimitLetsItsJobsGoAtOnce() {
        String capped = "capped-" + UUID.randomUUID();
        tenants.put(capped, new TenantSettings(null, 1, null, null)).await().atMost(TIMEOUT);
        try {
            tenants.syncWeights(List.of(queue.name())).await().atMost(TIMEOUT);
            addJobs(capped, 3);
            ProbeProcessor processor = ProbeProcessor.held(queue.name());
            workers.start(processor, TestWorkers.options("w-fair").concurrency(3).build());
            String first = awaitAttempt(processor, 0).context().jobId();
            awaitLockRenewed(first, 2);
            assertThat(processor.started()).as("one at a time, with two free slots").isEqualTo(1);

            tenants.remove(capped).await().atMost(TIMEOUT);
            tenants.syncWeights(List.of(queue.name())).await().atMost(TIMEOUT);

            await("its other two start while its first still runs").atMost(TIMEOUT)
                    .until(() -> processor.started() == 3);
            for (int i = 0; i < 3; i++) {
                processor.attempt(i).complete("done");
            }
        } finally {
            tenants.remove(capped).await().atMost(TIMEOUT);
        }
    }


    @Test
    void aTenantAtItsRateLimitStartsNoMoreUntilItsWindowEnds() {
        String limited = "limited-" + UUID.randomUUID();
        tenants.put(limited, new TenantSettings(null, null, new TenantSettings.RateLimit(2, 60_000), null))
                .await().atMost(TIMEOUT);
        try {
            tenants.syncWeights(List.of(queue.name())).await().atMost(TIMEOUT);
            addJobs(limited, 4);
            addJobs("zulu", 3);

            assertThat(tenantsOf(activate(8))).as("two starts a minute for the limited tenant")
                    .containsExactlyInAnyOrder(limited, limited, "zulu", "zulu", "zulu");
            assertThat(activate(8)).as("held until its window ends").isEmpty();
            double wake = redis.send(Request.cmd(Command.ZSCORE).arg(queue.keys().marker()).arg("delayed")).toDouble();
            long windowLeft = redis.send(Request.cmd(Command.PTTL).arg(queue.keys().prefix() + "tenant:" + limited
                    + ":limiter")).toLong();
            assertThat(windowLeft).as("the window is still open").isPositive();
            assertThat(wake).as("a worker looks again when the window ends, not before")
                    .isGreaterThanOrEqualTo(redis.redisTimeMillis());

            // The window ends (its counter expires): the next activation lets the tenant go on.
            redis.send(Request.cmd(Command.DEL).arg(queue.keys().prefix() + "tenant:" + limited + ":limiter"));
            assertThat(tenantsOf(activate(8))).containsExactly(limited, limited);
        } finally {
            tenants.remove(limited).await().atMost(TIMEOUT);
        }
    }


    @Test
    void aWorkerStartsARateLimitedTenantsJobsOneWindowApart() {
        String limited = "limited-" + UUID.randomUUID();
        tenants.put(limited, new TenantSettings(null, null, new TenantSettings.RateLimit(1, 1_000), null))
                .await().atMost(TIMEOUT);
        try {
            tenants.syncWeights(List.of(queue.name())).await().atMost(TIMEOUT);
            List<String> ids = addJobs(limited, 3);
            ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
            workers.start(processor, TestWorkers.options("w-fair").concurrency(3).build());

            await().atMost(TIMEOUT).until(() -> queue.getJobCounts().await().atMost(TIMEOUT).get(JobState.COMPLETED) == 3);
            List<Long> started = ids.stream().map(id -> redis.job(queue, id).processedOn()).sorted().toList();
            // A lower bound only: a slow machine can only make the starts further apart.
            assertThat(started.get(2) - started.get(0)).as("three starts, one per 1 s window").isGreaterThanOrEqualTo(1_000);
        } finally {
            tenants.remove(limited).await().atMost(TIMEOUT);
        }
    }

}

package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.tenancy.TenantSettings;
import dev.fencedqueue.tenancy.Tenants;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Fair dispatch between a queue's tenants (start-time fair queuing by cost, {@code fairShare.lua}): backlogged
 * tenants take turns by weighted usage whatever their backlogs, weights share the slots, a tenant that was idle gets
 * no burst, a newcomer's job is next, running work counts, and a queue with one tenant keeps its order and its keys.
 * Most tests activate jobs in one call without a worker, where every job is charged the same estimate: the order is
 * then exact.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class FairDispatchTest extends FairDispatchSupport {

    @Inject
    MeterRegistry meters;

    @Test
    void backloggedTenantsTakeTurnsWhateverTheirBacklogs() {
        addJobs("acme", 6);
        addJobs("bravo", 3);

        assertThat(tenantsOf(activate(6))).containsExactly("acme", "bravo", "acme", "bravo", "acme", "bravo");
        assertThat(tenantsOf(activate(10))).as("once bravo has none left, acme's go on")
                .containsExactly("acme", "acme", "acme");
    }

    @Test
    void theDefaultTenantTakesItsTurnBesideTheOthers() {
        addJobs(TenantIds.DEFAULT, 4);
        addJobs("acme", 2);

        assertThat(tenantsOf(activate(4))).containsExactlyInAnyOrder("acme", "acme", TenantIds.DEFAULT,
                TenantIds.DEFAULT);
        assertThat(tenantsOf(activate(4))).containsExactly(TenantIds.DEFAULT, TenantIds.DEFAULT);
    }

    @Test
    void weightsShareTheSlotsInProportion() {
        String heavy = "heavy-" + UUID.randomUUID();
        tenants.put(heavy, new TenantSettings(3.0, null, null, null)).await().atMost(TIMEOUT);
        try {
            tenants.syncWeights(List.of(queue.name())).await().atMost(TIMEOUT);
            addJobs(heavy, 40);
            addJobs("light", 40);

            List<String> order = tenantsOf(activate(40));
            assertThat(order.stream().filter(heavy::equals).count()).as("weight 3 against 1: 30 of 40")
                    .isBetween(29L, 31L);
        } finally {
            tenants.remove(heavy).await().atMost(TIMEOUT);
        }
    }

    @Test
    void aTenantThatWasIdleGetsNoBurst() {
        addJobs("acme", 40);
        assertThat(tenantsOf(activate(20))).containsOnly("acme");

        addJobs("bravo", 10);
        List<String> next = tenantsOf(activate(10));
        assertThat(next.stream().filter("bravo"::equals).count())
                .as("bravo starts level with acme, not 20 jobs below it: they alternate").isBetween(4L, 6L);
    }

    @Test
    void aTenantOfShortJobsHasAsManyTakenPerPickAsFitInTheQuantum() {
        addJobs("quick", 20);
        addJobs("slow", 20);
        // quick's jobs are expected to hold a slot 4 ms, slow's 100: a pick of quick takes five (20 ms), one of slow one.
        redis.send(Request.cmd(Command.HSET).arg(queue.keys().prefix() + "tenants:estimate").arg("quick").arg("4")
                .arg("slow").arg("100"));

        assertThat(tenantsOf(activate(12))).as("quick 0 -> 20, slow 0 -> 100, quick 20 -> 40 and on, cut at 12")
                .containsExactly("quick", "quick", "quick", "quick", "quick", "slow", "quick", "quick", "quick", "quick",
                        "quick", "quick");
    }

    @Test
    void aQueueChargingTokensTakesOneJobPerPick() {
        addJobs("quick", 20);
        addJobs("slow", 20);
        redis.send(Request.cmd(Command.HSET).arg(queue.keys().meta()).arg("costUnit").arg("tokens"));
        redis.send(Request.cmd(Command.HSET).arg(queue.keys().prefix() + "tenants:estimate").arg("quick").arg("4")
                .arg("slow").arg("100"));

        assertThat(tenantsOf(activate(6))).as("in tokens, each pick one job")
                .containsExactly("quick", "slow", "quick", "quick", "quick", "quick");
    }

    @Test
    void aNewcomersFirstJobIsTheNextToStartWhateverTheFlood() {
        addJobs("flood", 200);
        activate(50);

        String newcomer = addJobs("newcomer", 1).get(0);

        assertThat(activate(1)).containsExactly(newcomer);
    }

    /** Whichever of the two tenants' ids sorts first: the refunds stop a hair past the newcomer, not level with it. */
    @ParameterizedTest
    @CsvSource({"zeta, alpha", "alpha, zeta"})
    void runningJobsThatCostLessThanTheirChargeDoNotPutTheirTenantAheadOfANewcomer(String flood, String newcomers) {
        addJobs(flood, 16);
        String callId = "test-" + UUID.randomUUID() + ":";
        Response running = activateReply(4, callId);
        String newcomer = addJobs(newcomers, 1).get(0);

        // Two of the flood's four end in one call, each after a few ms of the 1,000 it was charged: the refunds stop a
        // hair past the virtual time, where the newcomer joined, so the newcomer's job is the one activated.
        QueueKeys keys = queue.keys();
        List<String> args = new ArrayList<>(List.of(keys.prefix(), "100", "100", "1", "test-" + UUID.randomUUID()
                + ":", LOCK_MS, "worker-F"));
        for (int job = 0; job < 2; job++) {
            String jobId = running.get(3 + 3 * job).toString();
            args.addAll(List.of(jobId, callId + ":" + jobId, running.get(4 + 3 * job).toString(), "\"done\"", "{}"));
        }
        Response reply = scripts.run(LuaScript.MOVE_TO_COMPLETED, List.of(keys.active(), keys.completed(),
                keys.waitList(), keys.prioritized(), keys.delayed(), keys.marker(), keys.meta(), keys.events()), args)
                .await().atMost(TIMEOUT);

        assertThat(reply.get(0)).extracting(Response::toInteger).containsExactly(0, 0);
        assertThat(reply.get(4).toString()).isEqualTo(newcomer);
    }

    @Test
    void resumingAQueueWakesTheWorkersForEveryTenantsJobs() {
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
        workers.start(processor, TestWorkers.options("w-fair").build());
        queue.pause().await().atMost(TIMEOUT);
        addJobs("acme", 2);
        addJobs("bravo", 2);

        queue.resume().await().atMost(TIMEOUT);

        await().atMost(TIMEOUT).until(() -> processor.started() == 4);
    }

    @Test
    void tenantJobGaugesCountEachNamedTenantsJobsAndEveryOtherTenantsTogether() {
        addJobs(TenantIds.DEFAULT, 2);
        addJobs("acme", 3);
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-fair").build());
        String running = awaitAttempt(processor, 0).context().jobId();
        assertThat(tenantOf.get(running)).as("a tie, won by name").isEqualTo("acme");

        // acme has no settings: metrics count it among the others.
        await().atMost(TIMEOUT).untilAsserted(() -> {
            assertThat(tenantJobs(TenantIds.DEFAULT, "waiting")).isEqualTo(2);
            assertThat(tenantJobs(TenantIds.DEFAULT, "running")).isZero();
            assertThat(tenantJobs(Tenants.OTHER, "waiting")).isEqualTo(2);
            assertThat(tenantJobs(Tenants.OTHER, "running")).isEqualTo(1);
        });
        processor.attempt(0).complete("done");
    }

    /** @return the gauge {@code fq_tenant_jobs} of the test's queue, NaN before it is read */
    private double tenantJobs(String tenant, String state) {
        var gauge = meters.find("fq.tenant.jobs").tag("queue", queue.name()).tag("tenant", tenant).tag("state", state)
                .gauge();
        return gauge == null ? Double.NaN : gauge.value();
    }

    @Test
    void priorityOrdersJobsWithinATenant() {
        String low = add(JobOptions.defaults().withTenant("acme").withPriority(5));
        String high = add(JobOptions.defaults().withTenant("acme").withPriority(1));
        String plain = add(JobOptions.defaults().withTenant("acme"));
        addJobs("bravo", 3);

        List<String> acme = activate(6).stream().filter(id -> !"bravo".equals(tenantOf.get(id))).toList();
        assertThat(acme).containsExactly(plain, high, low);
    }

    @Test
    void aQueueWithOneTenantKeepsItsOrderAndNoFairDispatchState() {
        List<String> ids = addJobs(TenantIds.DEFAULT, 5);

        assertThat(activate(5)).containsExactlyElementsOf(ids);
        assertThat(redis.exists(queue.keys().tenantsReady())).isFalse();
        assertThat(redis.hash(queue.keys().job(ids.get(0)))).noneSatisfy((field, value) ->
                assertThat(field).startsWith("charged"));
    }

    @Test
    void countsListsRemovesAndDrainsEveryTenantsWaitingJobs() {
        List<String> plain = addJobs(TenantIds.DEFAULT, 2);
        List<String> acme = addJobs("acme", 3);
        String urgent = add(JobOptions.defaults().withTenant("bravo").withPriority(1));

        assertThat(queue.getJobCounts().await().atMost(TIMEOUT)).containsEntry(JobState.WAITING, 5L)
                .containsEntry(JobState.PRIORITIZED, 1L);
        assertThat(queue.getJobs(JobState.WAITING, 0, 10).await().atMost(TIMEOUT)).extracting(Job::id)
                .containsExactly(plain.get(0), plain.get(1), acme.get(0), acme.get(1), acme.get(2));
        assertThat(queue.getJobs(JobState.WAITING, 1, 3).await().atMost(TIMEOUT)).extracting(Job::id)
                .containsExactly(plain.get(1), acme.get(0), acme.get(1));
        assertThat(queue.getJobs(JobState.PRIORITIZED, 0, 10).await().atMost(TIMEOUT)).extracting(Job::id)
                .containsExactly(urgent);
        activate(1);
        assertThat(queue.getTenantJobs("acme").await().atMost(TIMEOUT)).as("acme's job started first (a tie by name)")
                .isEqualTo(new JobQueue.TenantJobs(2, 1));
        assertThat(queue.getTenantJobs("bravo").await().atMost(TIMEOUT)).isEqualTo(new JobQueue.TenantJobs(1, 0));
        assertThat(queue.getTenantJobs(TenantIds.DEFAULT).await().atMost(TIMEOUT))
                .isEqualTo(new JobQueue.TenantJobs(2, 0));

        assertThat(queue.maintenance().remove(urgent).await().atMost(TIMEOUT)).isEqualTo(JobState.PRIORITIZED);
        assertThat(zrange(queue.keys().tenantsReady())).as("bravo has nothing ready any more")
                .containsExactlyInAnyOrder(TenantIds.DEFAULT, "acme");

        queue.maintenance().drain(false).await().atMost(TIMEOUT);
        assertThat(queue.getJobCounts().await().atMost(TIMEOUT)).containsEntry(JobState.WAITING, 0L)
                .containsEntry(JobState.ACTIVE, 1L);
        assertThat(redis.exists(queue.keys().tenantsReady())).isFalse();
        assertThat(redis.exists(queue.keys().tenantWaitList("acme"))).isFalse();
    }

    @Test
    void aJobChargesWhatItReallyCostNotTheEstimate() {
        addJobs("acme", 3);
        addJobs("bravo", 3);
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
        workers.start(processor, TestWorkers.options("w-fair").build());
        await().atMost(TIMEOUT).until(() -> queue.getJobCounts().await().atMost(TIMEOUT).get(JobState.COMPLETED) == 6);

        Map<String, String> usage = redis.hash(queue.keys().prefix() + "tenants:usage");
        assertThat(Double.parseDouble(usage.get("acme"))).as("three no-op jobs: far below 3 estimates of 1000 ms")
                .isLessThan(1500);
        for (String id : processor.startedJobIds()) {
            assertThat(redis.hash(queue.keys().job(id)).keySet()).as("settled: no charge left on job " + id)
                    .noneMatch(field -> field.startsWith("charged"));
        }
    }

    @Test
    void runningWorkCountsTowardsItsTenantsUsage() {
        redis.send(Request.cmd(Command.HSET).arg(queue.keys().meta()).arg("costEstimate").arg("1"));
        addJobs("acme", 2);
        addJobs("bravo", 2);
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-fair").concurrency(1).build());
        String running = awaitAttempt(processor, 0).context().jobId();
        String tenant = tenantOf.get(running);
        double charged = score(tenant);

        awaitLockRenewed(running, 2);

        assertThat(score(tenant)).as("its renewals charged the slot time of the running job").isGreaterThan(charged + 100);
        processor.attempt(0).complete("done");
        String next = awaitAttempt(processor, 1).context().jobId();
        assertThat(tenantOf.get(next)).as("the other tenant, which used less, goes next").isNotEqualTo(tenant);
        processor.attempt(1).complete("done");
    }

    private List<String> zrange(String key) {
        List<String> members = new ArrayList<>();
        redis.send(Request.cmd(Command.ZRANGE).arg(key).arg(0).arg(-1)).forEach(m -> members.add(m.toString()));
        return members;
    }
}

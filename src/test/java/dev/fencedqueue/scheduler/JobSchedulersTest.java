package dev.fencedqueue.scheduler;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Job schedulers with several workers in one JVM: one job per tick fleet-wide, upsert in place, the missed-tick
 * policies, pause, resume, run-now and remove.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class JobSchedulersTest extends QueueTestSupport {

    private static final long EVERY = 250;

    /** How late a tick may be before it counts as missed, in these tests. */
    private static final Duration MISSED_AFTER = Duration.ofMillis(500);

    @Inject
    JobSchedulers schedulers;

    @Inject
    LuaScripts scripts;

    @Inject
    SharedConnection connection;

    @Inject
    ObjectMapper json;

    @Test
    void producesExactlyOneJobPerTickWithThreeWorkersTicking() {
        String id = scheduler();
        for (int i = 0; i < 3; i++) {
            workers.start(ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item(context.job().tick())),
                    TestWorkers.options("w" + i).build());
        }
        upsert(id, Map.of("every", EVERY, "template", template()));

        await().atMost(TIMEOUT).until(() -> view(id).ticks() >= 12);
        schedulers.pause(id, true).await().atMost(TIMEOUT);
        long ticks = view(id).ticks();

        await().atMost(TIMEOUT).until(() -> completedTicks(id).size() == ticks);
        List<Long> produced = completedTicks(id);
        assertThat(produced).as("one job per tick, none missing in between").doesNotHaveDuplicates();
        for (int i = 1; i < produced.size(); i++) {
            assertThat(produced.get(i) - produced.get(i - 1)).isEqualTo(EVERY);
        }
        Job first = redis.job(queue, id + ":" + produced.get(0));
        assertThat(first.schedulerId()).isEqualTo(id);
        assertThat(first.tick()).isEqualTo(produced.get(0));
        assertThat(first.returnValue()).isEqualTo(Long.toString(produced.get(0)));
    }

    @Test
    void upsertingAnExistingSchedulerChangesItInPlaceAndAddsNoJobOfItsOwn() {
        String id = scheduler();
        ProbeProcessor held = ProbeProcessor.held(queue.name());
        workers.start(held, TestWorkers.options("held").build());
        upsert(id, Map.of("every", EVERY, "template", template()));
        awaitAttempt(held, 0);
        await("a job waits").atMost(TIMEOUT).until(() -> waitingOf(id) >= 1);

        JobSchedulerView changed = null;
        for (int i = 0; i < 5; i++) {
            changed = upsert(id, Map.of("every", 3_600_000, "template", template()));
        }

        long now = redis.redisTimeMillis();
        assertThat(changed.every()).isEqualTo(3_600_000L);
        assertThat(changed.next()).as("from now on, the new interval").isGreaterThan(now + 3_500_000);
        long jobs = waitingOf(id) + 1;
        assertThat(jobs).as("one job per tick, none for an upsert").isEqualTo(changed.ticks());
        await("several of the old ticks pass").atMost(TIMEOUT).until(() -> redis.redisTimeMillis() > now + 4 * EVERY);
        assertThat(waitingOf(id) + 1).as("no tick of the old interval any more").isEqualTo(jobs);
        assertThat(schedulers.list().await().atMost(TIMEOUT)).extracting(JobSchedulerView::id)
                .filteredOn(id::equals).hasSize(1);
    }

    @Test
    void aTickMissedWhileNoInstanceRanIsSkippedOrRunOnceAsItsSchedulerSays() {
        String skip = scheduler();
        String runOnce = scheduler();
        upsert(skip, Map.of("every", EVERY, "missed", "skip", "template", template()));
        upsert(runOnce, Map.of("every", EVERY, "missed", "run-once", "template", template()));
        startCounting("before");
        await().atMost(TIMEOUT).until(() -> view(skip).ticks() >= 2 && view(runOnce).ticks() >= 2);

        workers.stopAll();
        long lastSkip = latestTick(skip);
        long lastRunOnce = latestTick(runOnce);
        long stoppedAt = redis.redisTimeMillis();
        await("several ticks pass with no instance, longer than a tick may be late").atMost(TIMEOUT)
                .until(() -> redis.redisTimeMillis() > stoppedAt + 4 * MISSED_AFTER.toMillis());
        long restartedAt = redis.redisTimeMillis();
        startCounting("after");
        await().atMost(TIMEOUT).until(() -> latestTick(skip) > restartedAt && latestTick(runOnce) > restartedAt);

        assertThat(ticksBetween(skip, lastSkip, restartedAt)).as("skip: the missed ticks produced nothing").isEmpty();
        assertThat(ticksBetween(runOnce, lastRunOnce, restartedAt)).as("run-once: one job for them all").hasSize(1);
        assertThat(view(skip).skippedBecause()).isEqualTo("missed");
    }

    @Test
    void pausesResumesRunsNowAndRemovesAScheduler() {
        String id = scheduler();
        startCounting("w");
        JobSchedulerView created = upsert(id, Map.of("pattern", "0 9 * * *", "tz", "Europe/Berlin",
                "template", template()));
        java.time.ZonedDateTime next = java.time.Instant.ofEpochMilli(created.next())
                .atZone(java.time.ZoneId.of("Europe/Berlin"));
        assertThat(java.util.List.of(next.getHour(), next.getMinute(), next.getSecond())).as("a 09:00 in Berlin")
                .containsExactly(9, 0, 0);
        assertThat(created.tz()).isEqualTo("Europe/Berlin");

        String ranNow = schedulers.runNow(id).await().atMost(TIMEOUT);
        assertThat(ranNow).startsWith(id + ":");
        Job job = awaitJob(ranNow, j -> j.state() == JobState.COMPLETED);
        assertThat(job.schedulerId()).isEqualTo(id);

        JobSchedulerView paused = schedulers.pause(id, true).await().atMost(TIMEOUT);
        assertThat(paused.paused()).isTrue();
        assertThat(paused.next()).isNull();
        JobSchedulerView resumed = schedulers.pause(id, false).await().atMost(TIMEOUT);
        assertThat(resumed.paused()).isFalse();
        assertThat(resumed.next()).isEqualTo(created.next());

        assertThat(schedulers.remove(id).await().atMost(TIMEOUT)).isTrue();
        assertThat(schedulers.get(id).await().atMost(TIMEOUT)).isNull();
        assertThat(schedulers.remove(id).await().atMost(TIMEOUT)).isFalse();
        assertThat(redis.job(queue, ranNow)).as("its jobs stay").isNotNull();
    }

    /**
     * A fan-out template's tick while a running job holds the template's single-flight key (its channel): skipped with
     * {@code overlap: skip}, refused with the holder named with {@code overlap: refuse}; neither produces a job, and
     * both produce again once the holder ended.
     */
    @Test
    void aTickWhileTheTemplatesSingleFlightKeyIsHeldIsSkippedOrRefusedWithTheHolderNamed() {
        String skipper = scheduler();
        String refuser = scheduler();
        String holder = "holder-" + UUID.randomUUID().toString().substring(0, 8);
        String channel = "news-" + holder;
        CompletableFuture<Object> release = new CompletableFuture<>();
        QueueKeys keys = queue.keys();
        workers.start(ProbeProcessor.of(queue.name(), context -> !context.jobId().equals(holder)
                ? Uni.createFrom().item(context.jobId())
                : scripts.run(LuaScript.ACQUIRE_SINGLE_FLIGHT, List.of(keys.singleFlight(channel)),
                        List.of(holder, keys.prefix()))
                        .chain(taken -> Uni.createFrom().completionStage(release))),
                TestWorkers.options("w").schedulerMissedAfter(MISSED_AFTER).build());
        queue.add("fan-out", Map.of("channel", channel), JobOptions.defaults().withJobId(holder)).await().atMost(TIMEOUT);
        await().atMost(TIMEOUT).until(() -> holder.equals(redisValue(keys.singleFlight(channel))));

        Map<String, Object> template = Map.of("queue", queue.name(), "name", "fan-out", "data", Map.of("channel", channel));
        upsert(skipper, Map.of("every", EVERY, "overlap", "skip", "template", template));
        upsert(refuser, Map.of("every", EVERY, "template", template));
        await().atMost(TIMEOUT).until(() -> view(skipper).skipped() != null && view(refuser).refused() != null);
        assertThat(view(skipper).skippedBecause()).isEqualTo("overlap");
        assertThat(view(refuser).refusedReason()).contains(holder).contains(channel);
        assertThat(view(skipper).ticks()).isZero();
        assertThat(view(refuser).ticks()).as("refused ticks produce nothing").isZero();
        assertThat(view(refuser).overlap()).as("the default").isEqualTo("refuse");

        release.complete("done");
        await().atMost(TIMEOUT).until(() -> view(skipper).ticks() > 0 && view(refuser).ticks() > 0);
        schedulers.remove(skipper).await().atMost(TIMEOUT);
        schedulers.remove(refuser).await().atMost(TIMEOUT);
    }

    private String redisValue(String key) {
        Response value = connection.send(Request.cmd(Command.GET).arg(key)).await().atMost(TIMEOUT);
        return value == null ? null : value.toString();
    }

    private void startCounting(String workerId) {
        workers.start(ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item(context.jobId())),
                TestWorkers.options(workerId).schedulerMissedAfter(MISSED_AFTER).build());
    }

    private String scheduler() {
        return "s-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private Map<String, Object> template() {
        return Map.of("queue", queue.name(), "name", "scheduled", "data", Map.of("kind", "report"));
    }

    private JobSchedulerView upsert(String id, Map<String, Object> body) {
        return schedulers.upsert(id, json.valueToTree(body)).await().atMost(TIMEOUT);
    }

    private JobSchedulerView view(String id) {
        return schedulers.get(id).await().atMost(TIMEOUT);
    }

    /** @return the ticks of the scheduler's completed jobs, in order */
    private List<Long> completedTicks(String id) {
        return new ArrayList<>(allTicks(id, JobState.COMPLETED));
    }

    private TreeSet<Long> allTicks(String id, JobState state) {
        TreeSet<Long> ticks = new TreeSet<>();
        for (Job job : queue.getJobs(state, 0, 1000).await().atMost(TIMEOUT)) {
            if (id.equals(job.schedulerId())) {
                ticks.add(job.tick());
            }
        }
        return ticks;
    }

    private long latestTick(String id) {
        TreeSet<Long> ticks = new TreeSet<>();
        for (JobState state : List.of(JobState.COMPLETED, JobState.ACTIVE, JobState.WAITING)) {
            ticks.addAll(allTicks(id, state));
        }
        return ticks.isEmpty() ? 0 : ticks.last();
    }

    private List<Long> ticksBetween(String id, long after, long before) {
        List<Long> between = new ArrayList<>();
        for (JobState state : List.of(JobState.COMPLETED, JobState.ACTIVE, JobState.WAITING)) {
            allTicks(id, state).stream().filter(t -> t > after && t < before).forEach(between::add);
        }
        return between;
    }

    private long waitingOf(String id) {
        return queue.getJobs(JobState.WAITING, 0, 1000).await().atMost(TIMEOUT).stream()
                .filter(job -> id.equals(job.schedulerId())).count();
    }

}

package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.scheduler.JobSchedulers;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisFaultsResource;
import dev.fencedqueue.testing.RedisFaultsResource.RedisFaults;
import dev.fencedqueue.testing.RedisProcess;
import dev.fencedqueue.testing.RedisTestResource.InjectRedis;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The missed-tick policies when Redis restarts: ticks that fall due while Redis is down (killed with {@code SIGKILL},
 * restarted from its snapshot) produce nothing under {@code skip} and one job under {@code run-once}, and each
 * scheduler then goes on from its next tick.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisFaultsResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class SchedulerRedisRestartTest extends QueueTestSupport {

    private static final long EVERY = 250;
    private static final Duration MISSED_AFTER = Duration.ofMillis(500);

    @InjectRedis
    RedisFaults faults;

    @Inject
    JobSchedulers schedulers;

    @Inject
    ObjectMapper json;

    @Test
    void ticksDueWhileRedisWasDownAreSkippedOrRunOnceAsEachSchedulerSays() {
        String skip = "skip-" + queue.name();
        String runOnce = "run-once-" + queue.name();
        upsert(skip, "skip");
        upsert(runOnce, "run-once");
        workers.start(ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item(context.jobId())),
                TestWorkers.options("ticker").schedulerMissedAfter(MISSED_AFTER).build());
        await().atMost(TIMEOUT).until(() -> ticks(skip) >= 2 && ticks(runOnce) >= 2);

        // The snapshot Redis restarts from is taken with no worker running, so it holds every tick produced so far.
        workers.stopAll();
        long lastSkip = latest(skip);
        long lastRunOnce = latest(runOnce);
        RedisProcess master = faults.master();
        long killedAt = redis.redisTimeMillis();
        long downUntil = killedAt + 4 * MISSED_AFTER.toMillis(); // every tick before it fell due while Redis was down
        master.call("SAVE");
        master.kill();
        workers.start(ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item(context.jobId())),
                TestWorkers.options("ticker-again").schedulerMissedAfter(MISSED_AFTER).build());
        long down = System.nanoTime();
        await("Redis stays down for several ticks, longer than a tick may be late").atMost(TIMEOUT)
                .until(() -> System.nanoTime() - down > 4 * MISSED_AFTER.toNanos());
        master.restart();

        await("both go on after the restart").atMost(TIMEOUT).ignoreExceptions()
                .until(() -> latest(skip) > downUntil && latest(runOnce) > downUntil);
        assertThat(between(skip, lastSkip, downUntil)).as("skip: nothing for the ticks missed").isEmpty();
        assertThat(between(runOnce, lastRunOnce, downUntil)).as("run-once: one job for them").hasSize(1);
    }

    private void upsert(String id, String missed) {
        schedulers.upsert(id, json.valueToTree(Map.of("every", EVERY, "missed", missed, "template",
                Map.of("queue", queue.name(), "name", "tick")))).await().atMost(TIMEOUT);
    }

    private long ticks(String id) {
        return schedulers.get(id).await().atMost(TIMEOUT).ticks();
    }

    private List<Long> all(String id) {
        List<Long> ticks = new ArrayList<>();
        for (JobState state : List.of(JobState.COMPLETED, JobState.ACTIVE, JobState.WAITING)) {
            for (Job job : queue.getJobs(state, 0, 1000).await().atMost(TIMEOUT)) {
                if (id.equals(job.schedulerId())) {
                    ticks.add(job.tick());
                }
            }
        }
        return ticks;
    }

    private long latest(String id) {
        return all(id).stream().mapToLong(Long::longValue).max().orElse(0);
    }

    private List<Long> between(String id, long after, long before) {
        return all(id).stream().filter(tick -> tick > after && tick < before).toList();
    }
}

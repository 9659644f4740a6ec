package dev.fencedqueue.bench;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

import dev.fencedqueue.bulk.Throttle;
import dev.fencedqueue.notifications.FanOut;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.KeepJobs;

/** What {@link FanOutScenario} does with its jobs: add an unthrottled fan-out, wait for a state. */
final class FanOutJobs {

    /** Longest wait for a fan-out to reach a state. */
    static final Duration TIMEOUT = Duration.ofMinutes(5);

    private FanOutJobs() {
    }

    /**
     * @param chunk subscribers per chunk
     * @return the id of a new fan-out of the channel, no throttle
     */
    static String add(JobQueue queue, String channel, int chunk) {
        JobOptions options = JobOptions.defaults().withJobId("bench-fan-out-" + UUID.randomUUID())
                .withRemoveOnFail(new KeepJobs(1000, Duration.ofHours(1)));
        return queue.add("fan-out", new FanOut(channel, "benchmark", chunk, Throttle.NONE), options)
                .await().atMost(BenchContext.TIMEOUT).jobId();
    }

    /**
     * Polls the job every ms until it reaches {@code state}.
     *
     * @throws IllegalStateException when it ends in another state, or not within {@link #TIMEOUT}
     */
    static void awaitState(JobQueue queue, String jobId, JobState state) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            JobState now = queue.getJob(jobId).await().atMost(BenchContext.TIMEOUT).state();
            if (now == state) {
                return;
            }
            if (now.isTerminal()) {
                throw new IllegalStateException("job " + jobId + " ended " + now + ", not " + state);
            }
            LockSupport.parkNanos(1_000_000);
        }
        throw new IllegalStateException("job " + jobId + " did not reach " + state + " within " + TIMEOUT);
    }
}

package dev.fencedqueue.testing;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.AddResult;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import io.smallrye.mutiny.Uni;

/**
 * Adds many jobs quickly from a test thread: pipelined in batches of 500, so that the Redis client's queue of
 * waiting requests (2,048 by default) never overflows.
 */
public final class BulkAdd {

    private static final int BATCH = 500;

    private BulkAdd() {
    }

    /**
     * @param queue the queue
     * @param count how many jobs to add, named {@code job}, with data {@code {"i": <index>}}
     * @param options their options
     * @return the ids of the jobs, in the order they were added
     */
    public static List<String> jobs(JobQueue queue, int count, JobOptions options) {
        List<String> ids = new ArrayList<>(count);
        for (int batch = 0; batch < count; batch += BATCH) {
            List<Uni<AddResult>> adds = new ArrayList<>();
            for (int i = batch; i < Math.min(count, batch + BATCH); i++) {
                adds.add(queue.add("job", Map.of("i", i), options));
            }
            Uni.join().all(adds).andFailFast().await().atMost(TIMEOUT).forEach(added -> ids.add(added.jobId()));
        }
        return ids;
    }
}

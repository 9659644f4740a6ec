package dev.fencedqueue.worker;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.fencedqueue.queue.TenantIds;

/**
 * The slot time one worker's attempts held, by tenant, since it was last taken ({@link TenantSlotTime} adds it to the
 * fleet's, {@link dev.fencedqueue.queue.SlotTime}): an attempt holds a slot from its activation to the end of its
 * run, counted as it ends and, while it runs, each time the tally is taken. Confined to the worker's context.
 */
final class SlotTally {

    private final Map<String, Long> nanos = new HashMap<>();

    /** Counts the rest of an attempt's slot time: it ended (completed, failed, or was cancelled). */
    void ended(ActiveJob job) {
        add(job, System.nanoTime());
    }

    /**
     * @param running the worker's attempts now; those already finishing were counted when they ended
     * @return the slot time by tenant id since the last take, whole ms (the rest is kept for the next take)
     */
    Map<String, Long> take(Collection<ActiveJob> running) {
        long now = System.nanoTime();
        for (ActiveJob job : running) {
            if (!job.isFinishing()) {
                add(job, now);
            }
        }
        Map<String, Long> millis = new HashMap<>();
        nanos.replaceAll((tenant, held) -> {
            long whole = TimeUnit.NANOSECONDS.toMillis(held);
            if (whole > 0) {
                millis.put(tenant, whole);
            }
            return held - TimeUnit.MILLISECONDS.toNanos(whole);
        });
        nanos.values().removeIf(rest -> rest == 0);
        return millis;
    }

    private void add(ActiveJob job, long now) {
        long held = job.takeSlotNanos(now);
        if (held > 0) {
            nanos.merge(TenantIds.orDefault(job.job().tenant()), held, Long::sum);
        }
    }
}

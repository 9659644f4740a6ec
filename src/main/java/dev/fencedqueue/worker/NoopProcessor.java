package dev.fencedqueue.worker;

import io.smallrye.mutiny.Uni;

/**
 * The processor of the no-op queue ({@code fq.worker.noop-queue}): completes every job at once, without
 * reading its data, with a {@code null} result. What such a job costs is the queue's own work: activation,
 * lock, fencing token and completion, in Redis and in the worker.
 */
final class NoopProcessor implements JobProcessor {

    private static final Uni<Object> DONE = Uni.createFrom().nullItem();

    private final String queue;

    /** @param queue the queue to serve, must not be {@code null} */
    NoopProcessor(String queue) {
        this.queue = queue;
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public Uni<Object> process(JobContext context) {
        return DONE;
    }
}

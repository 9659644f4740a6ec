package dev.fencedqueue.testing;

import java.time.Duration;
import java.util.Optional;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import io.smallrye.mutiny.Uni;

/** Runs a processor (such as the research processor) on another queue, so that a test can use a fresh queue. */
public final class ProcessorOnQueue implements JobProcessor {

    private final JobProcessor delegate;
    private final String queue;

    private ProcessorOnQueue(JobProcessor delegate, String queue) {
        this.delegate = delegate;
        this.queue = queue;
    }

    /** @return {@code delegate} running the jobs of {@code queue} */
    public static ProcessorOnQueue of(JobProcessor delegate, String queue) {
        return new ProcessorOnQueue(delegate, queue);
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public Uni<Object> process(JobContext context) {
        return delegate.process(context);
    }

    @Override
    public Optional<Duration> backoff(Job job, int attemptsMade, Throwable failure, Duration delay) {
        return delegate.backoff(job, attemptsMade, failure, delay);
    }
}

package dev.fencedqueue.events;

import io.smallrye.mutiny.Multi;

/**
 * One SSE subscriber's registration with the tailer of its job: the job's events appended after the
 * registration, buffered until {@link #events()} is subscribed. {@link #close()} ends the registration;
 * it must be called (once or more) whatever happens to the subscriber.
 */
public interface LiveFeed {

    /**
     * @return the live events, in stream order; fails with a {@link io.smallrye.mutiny.subscription.BackPressureFailure}
     *         when the subscriber fell further behind than its buffer
     */
    Multi<JobEvent> events();

    /** Ends the registration. */
    void close();
}

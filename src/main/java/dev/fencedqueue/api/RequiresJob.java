package dev.fencedqueue.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a resource method whose {@code jobId} path parameter must name an existing job of its queue before
 * the method runs, so that streaming methods can answer 404 before their response starts.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface RequiresJob {

    /** @return the queue the job must be on */
    Kind value() default Kind.RESEARCH;

    /** The job types the API serves, each on its own queue. */
    enum Kind {
        /** Research jobs ({@code fq.research.queue}). */
        RESEARCH,
        /** Notification fan-outs ({@code fq.bulk.queue}). */
        NOTIFICATION
    }
}

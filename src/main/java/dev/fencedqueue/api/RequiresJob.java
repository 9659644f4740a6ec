package dev.fencedqueue.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a resource method whose {@code jobId} path parameter must name an existing research job before
 * the method runs, so that streaming methods can answer 404 before their response starts.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface RequiresJob {
}

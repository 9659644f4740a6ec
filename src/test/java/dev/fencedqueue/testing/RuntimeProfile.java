package dev.fencedqueue.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.quarkus.test.junit.QuarkusTestProfile;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a {@code @QuarkusTest} class with a test profile's settings applied to the application already running, before
 * its first test, and undone after its last, instead of with {@link io.quarkus.test.junit.TestProfile}, which starts
 * an application of its own (some seconds each, and the tests' time grows with every profile). Put it after
 * {@code @QuarkusTest}.
 * <p>
 * The profile's {@link QuarkusTestProfile#getConfigOverrides()} may only set what the application reads while it
 * runs: {@code fq.worker.enabled=false} stops the service's own workers (tests start their own, {@link TestWorkers})
 * and drains their queues, before the class and after it, so that no class takes another's jobs;
 * {@code fq.simulator.*} (but {@code enabled}), most of {@code fq.llm.*}, the lock settings of {@code fq.worker.*} and
 * {@code fq.bulk.single-flight} go through {@link SwitchableConfig}. Any other setting fails the class at once, naming it: that one needs a
 * {@code @TestProfile}. On a {@code @QuarkusIntegrationTest} subclass this does nothing: the packaged application gets
 * the profile as its {@code @TestProfile}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(RuntimeProfileExtension.class)
public @interface RuntimeProfile {

    /** @return the profile whose settings the class runs with */
    Class<? extends QuarkusTestProfile> value();
}

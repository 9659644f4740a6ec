package dev.fencedqueue.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/** {@link JobOptions}' {@code with...} methods: each changes its own components and keeps every other one. */
class JobOptionsTest {

    /** Options with no component at its default, so that a wither that copies a wrong component shows. */
    private static final JobOptions SET = JobOptions.defaults().withJobId("job-1").withAttempts(3)
            .withBackoff(Backoff.fixed(Duration.ofSeconds(1))).withDelay(Duration.ofSeconds(2)).withPriority(7)
            .withLifo(true).withEventStream(false).withIdempotencyKey("key-1", Duration.ofHours(1))
            .withRemoveOnComplete(KeepJobs.count(10)).withRemoveOnFail(KeepJobs.count(20))
            .withDeduplication(new Deduplication("dedup-1", null)).withTimeout(Duration.ofMinutes(5))
            .withTenant("tenant-1");

    @Test
    void eachWitherChangesOnlyItsOwnComponents() {
        JobOptions defaults = JobOptions.defaults();
        Map<Set<String>, UnaryOperator<JobOptions>> withers = Map.ofEntries(
                Map.entry(Set.of("jobId"), o -> o.withJobId(SET.jobId())),
                Map.entry(Set.of("attempts"), o -> o.withAttempts(SET.attempts())),
                Map.entry(Set.of("backoff"), o -> o.withBackoff(SET.backoff())),
                Map.entry(Set.of("delay"), o -> o.withDelay(SET.delay())),
                Map.entry(Set.of("priority"), o -> o.withPriority(SET.priority())),
                Map.entry(Set.of("lifo"), o -> o.withLifo(SET.lifo())),
                Map.entry(Set.of("eventStream"), o -> o.withEventStream(SET.eventStream())),
                Map.entry(Set.of("idempotencyKey", "idempotencyTtl"),
                        o -> o.withIdempotencyKey(SET.idempotencyKey(), SET.idempotencyTtl())),
                Map.entry(Set.of("removeOnComplete"), o -> o.withRemoveOnComplete(SET.removeOnComplete())),
                Map.entry(Set.of("removeOnFail"), o -> o.withRemoveOnFail(SET.removeOnFail())),
                Map.entry(Set.of("deduplication"), o -> o.withDeduplication(SET.deduplication())),
                Map.entry(Set.of("timeout"), o -> o.withTimeout(SET.timeout())),
                Map.entry(Set.of("tenant"), o -> o.withTenant(SET.tenant())));
        assertThat(withers.keySet().stream().flatMap(Set::stream).collect(Collectors.toSet()))
                .as("every component has a wither").isEqualTo(components());

        withers.forEach((changed, wither) -> {
            JobOptions options = wither.apply(defaults);
            for (String component : components()) {
                Object expected = value(changed.contains(component) ? SET : defaults, component);
                assertThat(value(options, component)).as("%s after the wither of %s", component, changed)
                        .isEqualTo(expected);
                assertThat(value(SET, component)).as("%s is set to other than its default", component)
                        .isNotEqualTo(value(defaults, component));
            }
        });
    }

    @Test
    void aWitherChecksTheNewOptionsAsTheConstructorDoes() {
        assertThatThrownBy(() -> JobOptions.defaults().withAttempts(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("`attempts` must be at least 1, was 0");
        assertThatThrownBy(() -> JobOptions.defaults().withTenant("no spaces")).hasMessageContaining("`tenant`");
    }

    private static Set<String> components() {
        return Arrays.stream(JobOptions.class.getRecordComponents()).map(RecordComponent::getName)
                .collect(Collectors.toSet());
    }

    private static Object value(JobOptions options, String component) {
        try {
            return JobOptions.class.getMethod(component).invoke(options);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}

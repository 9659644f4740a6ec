package dev.fencedqueue.config;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import dev.fencedqueue.api.TenancyConfig;
import dev.fencedqueue.api.admin.TracingConfig;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.llm.LlmConfig;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.worker.WorkerConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.runtime.configuration.MemorySizeConverter;
import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.validator.BeanValidationConfigValidator;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import org.hibernate.validator.HibernateValidator;
import org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator;
import org.junit.jupiter.api.Test;

/**
 * The constraints declared on the mappings stop start-up naming the option, as SmallRye Config checks them when
 * Hibernate Validator is present (Quarkus's {@code quarkus-hibernate-validator}): each mapping is built here from a few
 * properties with the same validator, so a constraint that is missing or wrong fails here, without an application
 * start. The cross-field checks beside the mappings are tested with the mappings they check
 * ({@code WorkerConfigCheckTest}, {@code LlmSetupCheckTest}, {@code LlmPricesTest}, {@code JobTenancyPrincipalTest}).
 */
class ConfigValidationTest {

    private static final Validator VALIDATOR = Validation.byProvider(HibernateValidator.class).configure()
            .messageInterpolator(new ParameterMessageInterpolator()).buildValidatorFactory().getValidator();

    @Test
    void refusesADurationThatMustBePositiveWhenItIsZero() {
        assertRefused(WorkerConfig.class, Map.of("fq.worker.lock.duration", "0s"),
                "fq.worker.lock.duration must be positive");
        assertRefused(WorkerConfig.class, Map.of("fq.worker.lock.renew-interval", "-1s"),
                "fq.worker.lock.renew-interval must be positive");
        assertRefused(WorkerConfig.class, Map.of("fq.worker.stalled.interval", "0s"),
                "fq.worker.stalled.interval must be positive");
        assertRefused(WorkerConfig.class, Map.of("fq.worker.drain-delay", "0s"), "fq.worker.drain-delay must be positive");
        assertRefused(LlmConfig.class, Map.of("fq.llm.stream.delta-interval", "0s"),
                "fq.llm.stream.delta-interval must be positive");
        assertRefused(LlmConfig.class, Map.of("fq.llm.http.open-timeout", "0s"),
                "fq.llm.http.open-timeout must be positive");
        assertRefused(LlmConfig.class, Map.of("fq.llm.stream.idle-timeout", "0s"),
                "fq.llm.stream.idle-timeout must be positive");
    }

    @Test
    void refusesADurabilityWaitThatWouldNeverEnd() {
        // Redis's WAIT and WAITAOF take 0 as "block forever".
        assertRefused(RedisKeysConfig.class, Map.of("fq.redis.wait.timeout", "0s"),
                "fq.redis.wait.timeout must be positive");
    }

    @Test
    void refusesAMemoryRatioOutsideZeroToOne() {
        assertRefused(RedisKeysConfig.class, Map.of("fq.redis.memory.max-ratio", "0"), "fq.redis.memory.max-ratio");
        assertRefused(RedisKeysConfig.class, Map.of("fq.redis.memory.max-ratio", "1.5"), "fq.redis.memory.max-ratio");
        assertAccepted(RedisKeysConfig.class, Map.of("fq.redis.memory.max-ratio", "1"));
    }

    @Test
    void refusesAnLlmBudgetLeaseShorterThanASecond() {
        assertRefused(LlmConfig.class, Map.of("fq.llm.budget.lease", "100ms"), "fq.llm.budget.lease must be at least 1s");
        assertAccepted(LlmConfig.class, Map.of("fq.llm.budget.lease", "1s"));
    }

    @Test
    void refusesANegativePrice() {
        assertRefused(LlmConfig.class, Map.of("fq.llm.price.input", "-1", "fq.llm.price.output", "10"),
                // Quarkus's interpolator says "greater than or equal to 0" (StartupChecksIT); this plain one leaves the
                // expression.
                "fq.llm.price.input must be greater than");
    }

    @Test
    void refusesATraceUrlWithoutThePlaceForTheTraceId() {
        assertRefused(TracingConfig.class, Map.of("fq.tracing.ui-url", "https://jaeger.example.com/trace/"),
                "fq.tracing.ui-url must hold {traceId} where the trace id goes");
        assertAccepted(TracingConfig.class, Map.of("fq.tracing.ui-url", "https://jaeger.example.com/trace/{traceId}"));
    }

    @Test
    void acceptsTheDefaults() {
        for (Class<?> mapping : new Class<?>[] { WorkerConfig.class, LlmConfig.class, RedisKeysConfig.class,
                TracingConfig.class, ResearchConfig.class, SimulatorConfig.class, EventsConfig.class, BulkConfig.class,
                ArchiveConfig.class, TenancyConfig.class, MetricsConfig.class }) {
            assertAccepted(mapping, Map.of());
        }
    }

    private static void assertRefused(Class<?> mapping, Map<String, String> properties, String message) {
        assertThatThrownBy(() -> build(mapping, properties)).as("%s with %s", mapping.getSimpleName(), properties)
                .isInstanceOf(ConfigValidationException.class).hasMessageContaining(message);
    }

    private static void assertAccepted(Class<?> mapping, Map<String, String> properties) {
        assertThatCode(() -> build(mapping, properties)).as("%s with %s", mapping.getSimpleName(), properties)
                .doesNotThrowAnyException();
    }

    private static void build(Class<?> mapping, Map<String, String> properties) {
        // Quarkus's converters, as the application reads `30s` and `64K`.
        new SmallRyeConfigBuilder().withMapping(mapping)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withConverter(MemorySize.class, 200, new MemorySizeConverter())
                .withValidator((BeanValidationConfigValidator) () -> VALIDATOR)
                .withSources(new PropertiesConfigSource(properties, "test", 500)).build().getConfigMapping(mapping);
    }
}

package dev.fencedqueue.research;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import dev.fencedqueue.config.SimulatorConfig;
import dev.fencedqueue.llm.LlmConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

/**
 * The start-up checks that span the LLM's, the simulator's and the workers' settings ({@link LlmSetupCheck}), on
 * mappings read from a few properties as the application reads them. Plain JUnit: no application starts
 * ({@code StartupChecksIT} sees the packaged application refuse them).
 */
class LlmSetupCheckTest {

    @Test
    void refusesWorkersWithoutAnLlm() {
        assertThatThrownBy(() -> check(Map.of("fq.simulator.enabled", "false"), true))
                .hasMessageStartingWith("no LLM for research jobs").hasMessageContaining("`fq.llm.url`")
                .hasMessageContaining("`fq.simulator.enabled`");
        assertThatCode(() -> check(Map.of("fq.simulator.enabled", "false"), false)).as("an instance without workers")
                .doesNotThrowAnyException();
    }

    @Test
    void refusesASimulatorSlowerThanTheIdleTimeout() {
        assertThatThrownBy(() -> check(Map.of("fq.simulator.enabled", "true", "fq.llm.protocol", "research",
                "fq.simulator.research.step-interval", "5s", "fq.llm.stream.idle-timeout", "2s"), true))
                .hasMessageStartingWith("`fq.simulator.research.step-interval` (PT5S) must be shorter than "
                        + "`fq.llm.stream.idle-timeout`");
        assertThatThrownBy(() -> check(Map.of("fq.simulator.enabled", "true", "fq.simulator.answer.token-interval", "3s",
                "fq.llm.stream.idle-timeout", "2s"), true))
                .hasMessageStartingWith("`fq.simulator.answer.token-interval` (PT3S) must be shorter than");
        assertThatCode(() -> check(Map.of("fq.simulator.enabled", "true", "fq.simulator.research.step-interval", "5s",
                "fq.llm.stream.idle-timeout", "2s"), true)).as("openai paces by tokens, not steps")
                .doesNotThrowAnyException();
    }

    @Test
    void refusesAnOpenAiServerWithoutAModel() {
        assertThatThrownBy(() -> check(Map.of("fq.llm.protocol", "openai", "fq.llm.url", "http://127.0.0.1:9"), true))
                .hasMessageStartingWith("`fq.llm.model` must be set when `fq.llm.protocol` is openai");
        assertThatCode(() -> check(Map.of("fq.llm.url", "http://127.0.0.1:9", "fq.llm.model", "m"), true))
                .doesNotThrowAnyException();
    }

    @Test
    void refusesOnePriceWithoutTheOther() {
        assertThatThrownBy(() -> check(Map.of("fq.simulator.enabled", "true", "fq.llm.price.input", "1"), true))
                .hasMessageStartingWith("`fq.llm.price.input` and `fq.llm.price.output` must be set together");
    }

    private static void check(Map<String, String> properties, boolean workersEnabled) {
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(LlmConfig.class).withMapping(SimulatorConfig.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(properties, "test", 500)).build();
        LlmSetupCheck.check(config.getConfigMapping(LlmConfig.class), config.getConfigMapping(SimulatorConfig.class),
                workersEnabled);
    }
}

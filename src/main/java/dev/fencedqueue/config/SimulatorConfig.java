package dev.fencedqueue.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

/** The built-in research LLM simulator ({@code fq.simulator.*}). */
@ConfigMapping(prefix = "fq.simulator")
public interface SimulatorConfig {

    /** Progress events per research stream, before the final summary. */
    @WithDefault("10")
    @Min(1)
    int steps();

    /** Time between two progress events; 60s makes a stream last about ten minutes, like seed 000's jobs. */
    @WithDefault("3s")
    Duration stepInterval();
}

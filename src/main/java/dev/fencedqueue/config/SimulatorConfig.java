package dev.fencedqueue.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

/**
 * The built-in LLM simulator ({@code fq.simulator.*}): the research protocol ({@code /simulator/research}) and
 * OpenAI-compatible streaming chat completions ({@code /simulator/v1/chat/completions}).
 */
@ConfigMapping(prefix = "fq.simulator")
public interface SimulatorConfig {

    /**
     * Whether the simulator's endpoints answer: on in dev mode and tests, off by default in the packaged application
     * (its paths then answer 404), so that a production instance offers no fake LLM to the world. With it off, an
     * empty {@code fq.llm.url} leaves research jobs without an LLM: they fail, saying so.
     */
    @WithDefault("false")
    boolean enabled();

    /** Progress events per research stream, before the final summary. */
    @WithDefault("10")
    @Min(1)
    int steps();

    /**
     * Time between two progress events; 60s makes a stream last about ten minutes, like the research jobs the service
     * is built for.
     */
    @WithDefault("3s")
    Duration stepInterval();

    /** OpenAI endpoint: time between two streamed words (one chunk each). */
    @WithDefault("50ms")
    Duration tokenInterval();

    /** OpenAI endpoint: words of a simulated answer (fewer when the request's {@code max_tokens} is lower). */
    @WithDefault("200")
    @Min(1)
    int answerWords();
}

package dev.fencedqueue.config;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

/** The research LLM server the worker calls ({@code fq.llm.*}). */
@ConfigMapping(prefix = "fq.llm")
public interface LlmConfig {

    /**
     * URL of the research endpoint ({@code POST {query, jobId}}, answered with an SSE stream). Empty
     * means the built-in simulator of this instance ({@code /simulator/research}), reached over HTTP.
     */
    Optional<String> url();

    /**
     * Longest silence (not a byte, comments included) tolerated from the LLM before the attempt fails; it
     * must exceed the longest gap between two of the LLM's messages.
     */
    @WithDefault("120s")
    Duration idleTimeout();

    /** Timeout to open the TCP connection to the LLM server. */
    @WithDefault("5s")
    Duration connectTimeout();

    /** Most connections open to the LLM server at the same time (one per running research job). */
    @WithDefault("256")
    @Min(1)
    int maxConnections();
}

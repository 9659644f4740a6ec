package dev.fencedqueue.research;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The service speaking OpenAI's protocol to its built-in simulator: 60-word answers at 5 ms a word, cut by
 * {@code max-tokens} at 40 (so they end with {@code finish_reason: length}), published every 10 words' worth.
 */
public class OpenAiProtocolProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("fq.llm.protocol", "openai",
                "fq.llm.request.max-tokens", "40",
                "fq.llm.stream.delta-chars", "60",
                "fq.llm.stream.delta-interval", "10s",
                "fq.simulator.answer.words", "60",
                "fq.simulator.answer.token-interval", "5ms");
    }
}

package dev.fencedqueue.research;

import java.util.Map;

import dev.fencedqueue.testing.WorkersOffProfile;

/**
 * No worker of the service's own, OpenAI's protocol to the simulator, and answers long enough (400 words at 20 ms)
 * for a takeover to happen in the middle of one.
 */
public class OpenAiZombieProfile extends WorkersOffProfile {

    @Override
    protected Map<String, String> more() {
        return Map.of("fq.llm.protocol", "openai",
                "fq.simulator.answer.words", "400",
                "fq.simulator.answer.token-interval", "20ms",
                "fq.llm.stream.delta-interval", "100ms");
    }
}

package dev.fencedqueue.research;

import java.util.HashMap;
import java.util.Map;

import dev.fencedqueue.testing.WorkersOffProfile;

/**
 * No worker of the service's own, OpenAI's protocol to the simulator, and answers long enough (400 words at 20 ms)
 * for a takeover to happen in the middle of one.
 */
public class OpenAiZombieProfile extends WorkersOffProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> config = new HashMap<>(super.getConfigOverrides());
        config.put("fq.llm.protocol", "openai");
        config.put("fq.simulator.answer-words", "400");
        config.put("fq.simulator.token-interval", "20ms");
        config.put("fq.llm.delta-interval", "100ms");
        return config;
    }
}

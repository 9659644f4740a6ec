package dev.fencedqueue.docs;

import java.util.HashMap;
import java.util.Map;

import dev.fencedqueue.research.OpenAiProtocolProfile;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The documentation's commands of blocks that say {@code # with fq.llm.price.input=2.50, fq.llm.price.output=10}: what
 * tokens cost, with the default protocol (as {@link DocumentedCommandsTest}).
 */
@QuarkusTest
@RuntimeProfile(PricedDocumentedCommandsTest.PricedOpenAi.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class PricedDocumentedCommandsTest extends DocumentedCommandsRunner {

    /** The settings the blocks ask for. */
    static final Map<String, String> SETTINGS = Map.of("fq.llm.price.input", "2.50", "fq.llm.price.output", "10");

    /** The OpenAI protocol to the simulator, with prices. */
    public static class PricedOpenAi implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(new OpenAiProtocolProfile().getConfigOverrides());
            config.putAll(SETTINGS);
            return config;
        }
    }

    @Override
    Map<String, String> settings() {
        return SETTINGS;
    }
}

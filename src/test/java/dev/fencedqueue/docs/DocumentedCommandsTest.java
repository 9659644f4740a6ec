package dev.fencedqueue.docs;

import java.util.Map;

import dev.fencedqueue.research.OpenAiProtocolProfile;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The documentation's commands that need no setting, against the application as a reader's would run: with the
 * default protocol, {@code openai} (the tests' own default is the research protocol), to the simulator.
 */
@QuarkusTest
@RuntimeProfile(OpenAiProtocolProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class DocumentedCommandsTest extends DocumentedCommandsRunner {

    @Override
    Map<String, String> settings() {
        return Map.of();
    }
}

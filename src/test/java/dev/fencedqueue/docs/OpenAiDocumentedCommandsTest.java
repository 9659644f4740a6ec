package dev.fencedqueue.docs;

import java.util.Map;

import dev.fencedqueue.research.OpenAiProtocolProfile;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;

/** The documentation's commands of blocks that say {@code # with fq.llm.protocol=openai}. */
@QuarkusTest
@RuntimeProfile(OpenAiProtocolProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class OpenAiDocumentedCommandsTest extends DocumentedCommandsRunner {

    @Override
    Map<String, String> settings() {
        return Map.of("fq.llm.protocol", "openai");
    }
}

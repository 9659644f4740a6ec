package dev.fencedqueue.docs;

import java.util.Map;

import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;

/** The documentation's commands that need no setting, against the application as the tests configure it. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class DocumentedCommandsTest extends DocumentedCommandsRunner {

    @Override
    Map<String, String> settings() {
        return Map.of();
    }
}

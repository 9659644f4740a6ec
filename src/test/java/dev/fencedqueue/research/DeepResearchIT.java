package dev.fencedqueue.research;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link DeepResearchTest} against the packaged application: the jar after `./mvnw verify`, the native executable
 * after `./mvnw verify -Dnative` (the plan, the children, the report, over the job's stream and its flow stream).
 */
@QuarkusIntegrationTest
class DeepResearchIT extends DeepResearchTest {
}

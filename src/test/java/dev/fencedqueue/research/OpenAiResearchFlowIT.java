package dev.fencedqueue.research;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;

/**
 * {@link OpenAiResearchFlowTest} against the packaged application (the jar, or the native executable): the OpenAI
 * protocol client with its fault-tolerance guard, the simulator's OpenAI endpoint, batched deltas and the result.
 */
@QuarkusIntegrationTest
@TestProfile(OpenAiProtocolProfile.class)
class OpenAiResearchFlowIT extends OpenAiResearchFlowTest {
}

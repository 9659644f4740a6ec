package dev.fencedqueue.research;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link ResearchFlowTest} against the packaged application: the jar after `./mvnw verify`, the native
 * executable after `./mvnw verify -Dnative` (a research job from start to completion over SSE, history, 204
 * on reconnect).
 */
@QuarkusIntegrationTest
class ResearchFlowIT extends ResearchFlowTest {
}

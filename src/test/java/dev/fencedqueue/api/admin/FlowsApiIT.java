package dev.fencedqueue.api.admin;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link FlowsApiTest} against the packaged application: the jar after `./mvnw verify`, the native executable after
 * `./mvnw verify -Dnative` (a flow added over HTTP, its children delivered to its parent by the packaged service).
 */
@QuarkusIntegrationTest
class FlowsApiIT extends FlowsApiTest {
}

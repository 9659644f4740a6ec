package dev.fencedqueue.api;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link OperationsEndpointsTest} against the packaged application: the jar after `./mvnw verify`, the native
 * executable after `./mvnw verify -Dnative` (health probes, Prometheus metrics, OpenAPI).
 */
@QuarkusIntegrationTest
class OperationsEndpointsIT extends OperationsEndpointsTest {
}

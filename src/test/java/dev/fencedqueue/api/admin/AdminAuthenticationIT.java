package dev.fencedqueue.api.admin;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link AdminAuthenticationTest} against the packaged application: the jar after `./mvnw verify`, the native
 * executable after `./mvnw verify -Dnative` (HTTP Basic on every operator path, JSON refusals).
 */
@QuarkusIntegrationTest
class AdminAuthenticationIT extends AdminAuthenticationTest {
}

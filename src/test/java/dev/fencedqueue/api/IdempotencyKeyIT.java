package dev.fencedqueue.api;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link IdempotencyKeyTest} against the packaged application: the jar after `./mvnw verify`, the native
 * executable after `./mvnw verify -Dnative` (the same job for the same key).
 */
@QuarkusIntegrationTest
class IdempotencyKeyIT extends IdempotencyKeyTest {
}

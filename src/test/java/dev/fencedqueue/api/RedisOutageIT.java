package dev.fencedqueue.api;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link RedisOutageTest} against the packaged application: the jar after `./mvnw verify`, the native
 * executable after `./mvnw verify -Dnative` (503 and readiness DOWN while Redis is down, recovery after).
 */
@QuarkusIntegrationTest
class RedisOutageIT extends RedisOutageTest {
}

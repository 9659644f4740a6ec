package dev.fencedqueue.api;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link NotificationsApiTest} against the packaged application: the jar after `./mvnw verify`, the native
 * executable after `./mvnw verify -Dnative` (Flyway's migration, JDBC through Agroal, a fan-out committed exactly
 * once into PostgreSQL, its status and SSE stream, bad input).
 */
@QuarkusIntegrationTest
class NotificationsApiIT extends NotificationsApiTest {
}

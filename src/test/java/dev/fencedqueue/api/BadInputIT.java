package dev.fencedqueue.api;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link BadInputTest} against the packaged application: the jar after `./mvnw verify`, the native
 * executable after `./mvnw verify -Dnative` (validation and error mapping: 400 naming the field, 404, 413, 415).
 */
@QuarkusIntegrationTest
class BadInputIT extends BadInputTest {
}

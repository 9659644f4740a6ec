package dev.fencedqueue.redis;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.util.Map;
import java.util.concurrent.TimeoutException;

import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** The shared connection's command timeout: a command Redis does not answer fails, and the next one goes through. */
@QuarkusTest
@TestProfile(SharedConnectionTest.ShortCommandTimeout.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class SharedConnectionTest {

    /** A profile of its own, so that pausing its Redis affects no other test. */
    public static class ShortCommandTimeout implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("fq.redis.command-timeout", "2s");
        }
    }

    @Inject
    SharedConnection redis;

    @Test
    void aCommandWithoutReplyFailsAfterTheCommandTimeoutAndTheNextOneGoesThrough() {
        assertThat(send(Request.cmd(Command.PING))).hasToString("PONG");
        // Every client's commands wait, unanswered, for 6 s: three times the command timeout.
        send(Request.cmd(Command.CLIENT).arg("PAUSE").arg(6_000).arg("ALL"));

        Throwable failure = catchThrowable(() -> send(Request.cmd(Command.PING)));

        // Its own timeout ends it, or that of a command the application sent just before on the same connection (a
        // metrics or topology read): a timed-out connection is dropped, and the commands still waiting on it fail.
        assertThat(failure).isInstanceOf(RedisUnavailableException.class).satisfiesAnyOf(
                timedOut -> assertThat(timedOut).hasRootCauseInstanceOf(TimeoutException.class)
                        .hasMessageContaining("no reply within"),
                dropped -> assertThat(dropped).hasMessageContaining("CONNECTION_CLOSED"));
        await("a command goes through once the pause ended").atMost(TIMEOUT).ignoreExceptions()
                .untilAsserted(() -> assertThat(send(Request.cmd(Command.PING))).hasToString("PONG"));
    }

    private Response send(Request request) {
        return redis.send(request).await().atMost(TIMEOUT);
    }
}

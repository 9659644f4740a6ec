package dev.fencedqueue.health;

import java.time.Duration;

import dev.fencedqueue.Failures;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready while Redis answers {@code PING} within one second on the connection jobs and events use. */
@Readiness
@ApplicationScoped
public class RedisReadinessCheck implements AsyncHealthCheck {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final SharedConnection redis;

    public RedisReadinessCheck(SharedConnection redis) {
        this.redis = redis;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        long started = System.nanoTime();
        return redis.send(Request.cmd(Command.PING))
                .ifNoItem().after(TIMEOUT).fail()
                .map(pong -> HealthCheckResponse.named("redis").up()
                        .withData("latencyMs", (System.nanoTime() - started) / 1_000_000).build())
                .onFailure().recoverWithItem(failure -> HealthCheckResponse.named("redis").down()
                        .withData("error", Failures.describe(failure)).build());
    }
}

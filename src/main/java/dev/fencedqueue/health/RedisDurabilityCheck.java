package dev.fencedqueue.health;

import java.time.Duration;
import java.util.Map;

import dev.fencedqueue.Failures;
import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * How a new job is made durable, and whether it can be. Its data says what {@code fq.redis.wait.replicas} asks
 * ({@code waitReplicas}: {@code auto} or a number), how many replicas a new job waits for now ({@code replicas}) and
 * how many replicas in sync the master had when last asked ({@code onlineReplicas}). With {@code fq.redis.wait.aof} it
 * is ready only while the Redis the service writes to has {@code WAITAOF} (Redis 7.2 or later, from
 * {@code COMMAND INFO}) and its {@code appendonly} is on (from {@code INFO persistence}); otherwise every new job would
 * be answered {@code 503}, so the instance should get no traffic and the operator sees why. Without {@code wait-aof} it
 * is up. Replicas are not checked here: a replica without AOF, or one missing, shows as {@code 503 not_replicated} on
 * new jobs.
 */
@Readiness
@ApplicationScoped
public class RedisDurabilityCheck implements AsyncHealthCheck {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final String NAME = "redis-durability";

    private final SharedConnection redis;
    private final boolean waitAof;
    private final String waitReplicas;

    public RedisDurabilityCheck(SharedConnection redis, RedisKeysConfig config) {
        this.redis = redis;
        this.waitAof = config.waitFor().aof();
        this.waitReplicas = config.waitFor().replicas().toString();
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        if (!waitAof) {
            return Uni.createFrom().item(named().up().build());
        }
        return redis.send(Request.cmd(Command.COMMAND).arg("INFO").arg("waitaof"))
                .chain(info -> info.size() == 0 || info.get(0) == null
                        ? Uni.createFrom().item(down("Redis has no WAITAOF: fq.redis.wait.aof needs Redis 7.2 or later"))
                        : redis.send(Request.cmd(Command.INFO).arg("persistence"))
                                .map(persistence -> persistence.toString().contains("aof_enabled:1")
                                        ? named().up().build()
                                        : down("Redis's appendonly is off: fq.redis.wait.aof needs appendonly yes")))
                .ifNoItem().after(TIMEOUT).fail()
                .onFailure().recoverWithItem(failure -> down(Failures.describe(failure)));
    }

    private HealthCheckResponseBuilder named() {
        HealthCheckResponseBuilder builder = HealthCheckResponse.named(NAME).withData("waitAof", waitAof)
                .withData("waitReplicas", waitReplicas);
        for (Map.Entry<String, Integer> entry : redis.durability().entrySet()) {
            builder.withData(entry.getKey(), entry.getValue());
        }
        return builder;
    }

    private HealthCheckResponse down(String error) {
        return named().down().withData("error", error).build();
    }
}

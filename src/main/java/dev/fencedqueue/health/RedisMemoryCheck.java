package dev.fencedqueue.health;

import dev.fencedqueue.redis.MemoryState;
import dev.fencedqueue.redis.RedisMemory;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Redis's memory as last read ({@link RedisMemory}, no Redis call here): {@code policy} ({@code maxmemory-policy}),
 * {@code usedMemory} and {@code maxMemory} in bytes (0: unlimited). Down while the policy may evict keys (anything but
 * {@code noeviction}) and {@code fq.redis.memory.allow-eviction} is off: this instance then runs no workers. A Redis nearly
 * full keeps it up (new jobs are answered {@code 503 redis_full}, running ones go on); before Redis was first read
 * it is up with no data, as {@code redis} says whether Redis can be reached.
 */
@Readiness
@ApplicationScoped
public class RedisMemoryCheck implements HealthCheck {

    private final RedisMemory memory;

    public RedisMemoryCheck(RedisMemory memory) {
        this.memory = memory;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder builder = HealthCheckResponse.named("redis-memory").up();
        memory.state().ifPresent(state -> data(builder, state));
        if (memory.refusesPolicy()) {
            builder.down().withData("error", "Redis's maxmemory-policy is " + memory.state().map(MemoryState::policy)
                    .orElse("") + ": Redis may delete jobs when full, so this instance runs no workers; set "
                    + "maxmemory-policy noeviction (or fq.redis.memory.allow-eviction=true)");
        }
        return builder.build();
    }

    private static void data(HealthCheckResponseBuilder builder, MemoryState state) {
        builder.withData("policy", state.policy()).withData("usedMemory", state.usedMemory())
                .withData("maxMemory", state.maxMemory());
    }
}

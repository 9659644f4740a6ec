package dev.fencedqueue.api;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The rate limit of {@code POST /research/start} per client address ({@code fq.research.start-rate-limit} requests
 * per {@code fq.research.start-rate-limit-window}): a fixed window per address, counted in Redis by
 * {@code rateLimit.lua}, so every instance of the fleet shares it. Off when the limit is not set.
 */
@ApplicationScoped
public class StartRateLimit {

    private final LuaScripts scripts;
    private final Optional<Integer> limit;
    private final Duration window;

    public StartRateLimit(LuaScripts scripts, ResearchConfig config) {
        this.scripts = scripts;
        this.limit = config.startRateLimit();
        this.window = config.startRateLimitWindow();
    }

    /**
     * Counts a request of {@code client}.
     *
     * @param queue the queue whose jobs the client starts (its hash tag holds the counter)
     * @param client the client's address, as Quarkus resolved it (forwarded headers included when enabled)
     * @return completes when the request is admitted; fails with {@link TooManyRequestsException} when the client's
     *         window is full, and with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is down
     */
    public Uni<Void> admit(JobQueue queue, String client) {
        if (limit.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return scripts.run(LuaScript.RATE_LIMIT, List.of(queue.keys().startRateLimit(client)),
                List.of(limit.get().toString(), Long.toString(window.toMillis()))).map(reply -> {
                    if (reply.get(0).toInteger() == 0) {
                        throw new TooManyRequestsException("at most " + limit.get() + " jobs may be started per "
                                + window.toSeconds() + " s from one address", Duration.ofMillis(reply.get(1).toLong()));
                    }
                    return null;
                });
    }
}

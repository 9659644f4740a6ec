package dev.fencedqueue.api;

import java.time.Duration;
import java.util.Optional;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.JobQueue;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The rate limit of {@code POST /research/start} per client address ({@code fq.research.start-rate-limit.max} requests
 * per {@code fq.research.start-rate-limit.window}): a fixed window per address, counted in Redis by the queue
 * ({@link dev.fencedqueue.queue.ClientStarts}), so every instance of the fleet shares it. Off when the limit is not
 * set.
 */
@ApplicationScoped
public class StartRateLimit {

    private final Optional<Integer> limit;
    private final Duration window;

    public StartRateLimit(ResearchConfig config) {
        this.limit = config.startRateLimit().max();
        this.window = config.startRateLimit().window();
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
        return queue.clientStarts().count(client, limit.get(), window).map(retryAfter -> {
            if (retryAfter.isPresent()) {
                throw new TooManyRequestsException("at most " + limit.get() + " jobs may be started per "
                        + window.toSeconds() + " s from one address", retryAfter.get());
            }
            return null;
        });
    }
}

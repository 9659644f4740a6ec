package dev.fencedqueue.redis;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import org.hibernate.validator.constraints.time.DurationMin;

/** How fenced-queue uses Redis ({@code fq.redis.*}); where Redis is comes from {@code quarkus.redis.*}. */
@ConfigMapping(prefix = "fq.redis")
public interface RedisKeysConfig {

    /** Prefix of every key, before the queue's hash tag: {@code <prefix>:{<queue>}:...}. */
    @WithDefault("fq")
    String keyPrefix();

    /** Longest wait for one Redis command before it fails as unavailable (503 at the API). */
    @WithDefault("5s")
    Duration commandTimeout();

    /**
     * The wait after a new job is added, before it is accepted ({@code fq.redis.wait.*}): for replicas, and for the
     * append-only file.
     */
    @WithName("wait")
    Wait waitFor();

    /** Redis's memory, read from {@code INFO memory} ({@code fq.redis.memory.*}). */
    Memory memory();

    /** The wait after a new job is added ({@code fq.redis.wait.*}). */
    interface Wait {

        /**
         * Replicas that must have received a new job before it is accepted ({@code 202}): after adding it, the service
         * sends Redis's {@code WAIT <replicas> <timeout>} on the same connection, and a job that too few replicas
         * acknowledged within {@link #timeout()} is answered {@code 503} (it may or may not survive a failover; retry
         * with the same {@code Idempotency-Key}). {@code auto} (the default) waits for one replica whenever the master
         * has one in sync, while its Sentinels fail it over, and after it lost its last one until every Sentinel names
         * it again with no failover in progress (at most {@value WaitReplicas#HOLD_SECONDS} s: the replica may have
         * been promoted); and for none on a lone Redis or a Redis Cluster; a number waits for that many; {@code 0}
         * waits for none, so that a failover to a replica that had not received a job loses it.
         */
        @WithDefault("auto")
        @WithConverter(WaitReplicas.Converter.class)
        WaitReplicas replicas();

        /**
         * Whether a new job must also be on disk before it is accepted ({@code 202}): the wait after adding it is
         * Redis's {@code WAITAOF 1 <replicas> <timeout>} instead of {@code WAIT}, which returns once the master has
         * written the job to its append-only file and {@code fsync}ed it, and {@link #replicas()} replicas have too.
         * For {@code appendfsync everysec}, where a crash of the machine loses up to a second of acknowledged writes.
         * Needs Redis 7.2 or later with {@code appendonly yes} on the master (and on the replicas counted): otherwise
         * every new job is answered {@code 503} and the {@code redis-durability} readiness check is down. Under
         * {@code appendfsync everysec} a job waits up to about a second for the next {@code fsync}: set
         * {@link #timeout()} to 2 s or more there.
         */
        @WithDefault("false")
        boolean aof();

        /**
         * The longest {@code WAIT} or {@code WAITAOF} for what {@link #replicas()} and {@link #aof()} ask; must be
         * positive (Redis takes 0 as "forever": a durability wait must end).
         */
        @WithDefault("1s")
        @DurationMin(inclusive = false, message = "must be positive")
        Duration timeout();
    }

    /** Redis's memory ({@code fq.redis.memory.*}). */
    interface Memory {

        /**
         * The share of Redis's {@code maxmemory} above which new jobs are refused ({@code 503 redis_full}, with
         * {@code Retry-After}) before they are added, rather than accepted and then failing inside Redis; more than 0
         * and at most 1. Read from {@code INFO memory} every {@link #checkInterval()}; without a {@code maxmemory}
         * nothing is refused.
         */
        @WithDefault("0.9")
        @DecimalMin(value = "0", inclusive = false)
        @DecimalMax("1")
        double maxRatio();

        /**
         * Whether workers run on a Redis whose {@code maxmemory-policy} is not {@code noeviction}. Such a Redis deletes
         * keys when it is full, a job's hash, lock or fencing token among them, so by default the instance runs no
         * workers there and its {@code redis-memory} readiness check is down; {@code true} accepts that risk.
         */
        @WithDefault("false")
        boolean allowEviction();

        /** How often Redis's memory and {@code maxmemory-policy} are read ({@code INFO memory}). */
        @WithDefault("1s")
        @DurationMin(inclusive = false, message = "must be positive")
        Duration checkInterval();
    }

    /**
     * What {@link Wait#replicas()} says: {@code auto} or a number of replicas.
     *
     * @param auto whether the number follows the master's replicas ({@code auto})
     * @param count the replicas to wait for when not {@code auto}, 0 or more; 0 with {@code auto}
     */
    record WaitReplicas(boolean auto, int count) {

        /** How long {@code auto} still waits for a replica after the master lost its last one, s. */
        public static final int HOLD_SECONDS = 30;

        /** {@code auto}. */
        public static final WaitReplicas AUTO = new WaitReplicas(true, 0);

        public WaitReplicas {
            if (count < 0 || (auto && count != 0)) {
                throw new IllegalArgumentException("`fq.redis.wait.replicas` must be `auto` or a number of replicas, "
                        + "0 or more; got " + count);
            }
        }

        /**
         * @param value {@code auto} (any case) or a whole number, 0 or more
         * @return the setting
         * @throws IllegalArgumentException for anything else
         */
        public static WaitReplicas of(String value) {
            String trimmed = value.trim();
            if ("auto".equalsIgnoreCase(trimmed)) {
                return AUTO;
            }
            try {
                return new WaitReplicas(false, Integer.parseInt(trimmed));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("`fq.redis.wait.replicas` must be `auto` or a number of replicas, "
                        + "0 or more; got `" + value + "`", e);
            }
        }

        @Override
        public String toString() {
            return auto ? "auto" : Integer.toString(count);
        }

        /** Reads the setting with {@link #of}. */
        public static final class Converter implements org.eclipse.microprofile.config.spi.Converter<WaitReplicas> {

            @Override
            public WaitReplicas convert(String value) {
                return of(value);
            }
        }
    }
}

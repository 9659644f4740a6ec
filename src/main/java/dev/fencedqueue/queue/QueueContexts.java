package dev.fencedqueue.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.config.EventsConfig;
import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.tracing.JobTracing;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The lookup from a queue name to what every view of that queue shares ({@link QueueContext}): its keys under the
 * global prefix, the scripts, the shared connection, Jackson, the stream bounds, the spans and the archive. A context
 * is a cheap value made afresh at each call; nothing is kept per name.
 * <p>
 * Only package {@code worker} still uses it, until its collaborators take the parts they use as every other package's
 * do; elsewhere {@link Queues} is the one registry of queues (a queue's {@link JobQueue} and {@link QueueKeys}).
 */
@ApplicationScoped
public class QueueContexts {

    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final ObjectMapper json;
    private final String keyPrefix;
    private final int maxStreamLength;
    private final int maxQueueEvents;
    private final JobTracing tracing;
    private final JobArchive archive;

    /**
     * @param scripts the script registry, not {@code null}
     * @param redis the shared connection, not {@code null}
     * @param json Jackson, not {@code null}
     * @param redisConfig the key prefix ({@code fq.redis.key-prefix}), not {@code null}
     * @param events the stream bounds ({@code fq.events.*}), not {@code null}
     * @param tracing the spans of jobs, not {@code null} ({@link JobTracing#noop()} while tracing is off)
     * @param archive where finished jobs go once Redis no longer keeps them, not {@code null} ({@link JobArchive#NONE}
     *        for nowhere)
     */
    public QueueContexts(LuaScripts scripts, SharedConnection redis, ObjectMapper json, RedisKeysConfig redisConfig,
            EventsConfig events, JobTracing tracing, JobArchive archive) {
        this.scripts = scripts;
        this.redis = redis;
        this.json = json;
        this.keyPrefix = redisConfig.keyPrefix();
        this.maxStreamLength = events.maxStreamLength();
        this.maxQueueEvents = events.queueStreamMaxLength();
        this.tracing = tracing;
        this.archive = archive;
    }

    /**
     * @param name the queue name: 1 to 100 of {@code A-Z a-z 0-9 . _ -}
     * @return what the views of that queue share
     * @throws IllegalArgumentException when the name is not valid
     */
    public QueueContext context(String name) {
        return new QueueContext(keys(name), scripts, redis, json, maxStreamLength, maxQueueEvents, tracing, archive);
    }

    /**
     * @param name the queue name: 1 to 100 of {@code A-Z a-z 0-9 . _ -}
     * @return the key layout of that queue
     * @throws IllegalArgumentException when the name is not valid
     */
    public QueueKeys keys(String name) {
        return QueueKeys.of(keyPrefix, name);
    }

    /** @return the global key prefix ({@code fq.redis.key-prefix}), which every queue's keys start with */
    public String keyPrefix() {
        return keyPrefix;
    }
}

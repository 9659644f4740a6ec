package dev.fencedqueue.queue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The registry of queues by name: hands out the {@link JobQueue} of a queue name (BullMQ's {@code new Queue(name)})
 * and its key layout ({@link QueueKeys}) under the global key prefix. Queues are cheap views over Redis keys. Flows
 * ({@code FlowProducer}) and job schedulers ({@code JobSchedulers}) are beans of their own packages.
 */
@ApplicationScoped
public class Queues {

    private final JobAdder adder;
    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final JobArchive archive;
    private final String keyPrefix;
    private final int maxStreamLength;
    private final int maxQueueEvents;
    private final AbortFollowUp abortFollowUp;
    private final Map<String, JobQueue> queues = new ConcurrentHashMap<>();

    /**
     * @param adder adds the queues' jobs, not {@code null}
     * @param scripts the script registry, not {@code null}
     * @param redis the shared connection, not {@code null}
     * @param archive where finished jobs go once Redis no longer keeps them, not {@code null} ({@link JobArchive#NONE}
     *        for nowhere)
     * @param redisConfig the key prefix ({@code fq.redis.key-prefix}), not {@code null}
     * @param events the stream bounds ({@code fq.events.*}), not {@code null}
     * @param abortFollowUp what follows the abort of a job in a flow, not {@code null}
     */
    public Queues(JobAdder adder, LuaScripts scripts, SharedConnection redis, JobArchive archive,
            RedisKeysConfig redisConfig, EventsConfig events, AbortFollowUp abortFollowUp) {
        this.adder = adder;
        this.scripts = scripts;
        this.redis = redis;
        this.archive = archive;
        this.keyPrefix = redisConfig.keyPrefix();
        this.maxStreamLength = events.maxStreamLength();
        this.maxQueueEvents = events.queueStreamMaxLength();
        this.abortFollowUp = abortFollowUp;
    }

    /**
     * @param name the queue name: 1 to 100 of {@code A-Z a-z 0-9 . _ -}
     * @return the queue
     * @throws IllegalArgumentException when the name is not valid
     */
    public JobQueue queue(String name) {
        return queues.computeIfAbsent(name, this::create);
    }

    /**
     * A view of a queue for a one-off request (an operator naming any queue): the shared instance when the
     * queue is already in use here, else a fresh view that is not kept, so that looking up arbitrary names does
     * not grow this registry.
     *
     * @param name the queue name: 1 to 100 of {@code A-Z a-z 0-9 . _ -}, not {@code null}
     * @return the queue
     * @throws IllegalArgumentException when the name is not valid
     * @throws NullPointerException when the name is {@code null}
     */
    public JobQueue lookup(String name) {
        JobQueue queue = queues.get(name);
        return queue != null ? queue : create(name);
    }

    /**
     * @param name the queue name: 1 to 100 of {@code A-Z a-z 0-9 . _ -}
     * @return the key layout of that queue (a cheap value, made afresh)
     * @throws IllegalArgumentException when the name is not valid
     */
    public QueueKeys keys(String name) {
        return QueueKeys.of(keyPrefix, name);
    }

    /** @return the global key prefix ({@code fq.redis.key-prefix}), which every queue's keys start with */
    public String keyPrefix() {
        return keyPrefix;
    }

    private JobQueue create(String name) {
        return new JobQueue(keys(name), adder, scripts, redis, archive, maxStreamLength, maxQueueEvents, abortFollowUp);
    }
}

package dev.fencedqueue.queue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.config.EventsConfig;
import dev.fencedqueue.config.RedisKeysConfig;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.tracing.JobTracing;
import jakarta.enterprise.context.ApplicationScoped;

/** Hands out the {@link JobQueue} of a queue name; queues are cheap views over Redis keys. */
@ApplicationScoped
public class Queues {

    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final ObjectMapper json;
    private final String keyPrefix;
    private final int maxStreamLength;
    private final int maxQueueEvents;
    private final Map<String, JobQueue> queues = new ConcurrentHashMap<>();
    private final Flows flows;
    private final JobSchedulers schedulers;
    private final JobTracing tracing;
    private final JobArchive archive;
    private final QueueFigures figures = new QueueFigures(this);

    public Queues(LuaScripts scripts, SharedConnection redis, ObjectMapper json, RedisKeysConfig redisConfig,
            EventsConfig events, JobTracing tracing, JobArchive archive) {
        this.archive = archive;
        this.scripts = scripts;
        this.tracing = tracing;
        this.redis = redis;
        this.json = json;
        this.keyPrefix = redisConfig.keyPrefix();
        this.maxStreamLength = events.maxStreamLength();
        this.maxQueueEvents = events.queueStreamMaxLength();
        this.flows = new Flows(this);
        this.schedulers = new JobSchedulers(this);
    }

    /** @return where finished jobs go once Redis no longer keeps them */
    public JobArchive archive() {
        return archive;
    }

    /** @return the key figures of queues: oldest waiting age, jobs ended recently */
    public QueueFigures figures() {
        return figures;
    }

    /** @return the spans of jobs (a no-op while tracing is off) */
    public JobTracing tracing() {
        return tracing;
    }

    /** @return job schedulers over all queues */
    public JobSchedulers schedulers() {
        return schedulers;
    }

    /** @return flows: adding a parent with its children, delivering children's endings to their parents */
    public Flows flows() {
        return flows;
    }

    /**
     * @param name the queue name: 1 to 100 of {@code A-Z a-z 0-9 . _ -}
     * @return the queue
     * @throws IllegalArgumentException when the name is not valid
     */
    public JobQueue queue(String name) {
        return queues.computeIfAbsent(name, n -> new JobQueue(context(n), flows));
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
        return queue != null ? queue : new JobQueue(context(name), flows);
    }

    /**
     * @param name the queue name
     * @return what the views of that queue share
     */
    public QueueContext context(String name) {
        return new QueueContext(keys(name), scripts, redis, json, maxStreamLength, maxQueueEvents, tracing, archive);
    }

    /**
     * @param name the queue name
     * @return the key layout of that queue
     */
    public QueueKeys keys(String name) {
        return QueueKeys.of(keyPrefix, name);
    }

    /** @return the global key prefix ({@code fq.redis.key-prefix}) */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** @return Jackson */
    public ObjectMapper json() {
        return json;
    }

    /** @return the scripts registry */
    public LuaScripts scripts() {
        return scripts;
    }

    /** @return the shared connection */
    public SharedConnection redis() {
        return redis;
    }
}

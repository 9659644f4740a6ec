package dev.fencedqueue.redis;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.fencedqueue.Failures;
import io.quarkus.runtime.Startup;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Guards against a Redis that runs out of memory, and against one that deletes keys when it does. Every
 * {@code fq.redis.memory.check-interval} (1 s) it reads {@code INFO memory} ({@code used_memory}, {@code maxmemory},
 * {@code maxmemory_policy}; {@code INFO} rather than {@code CONFIG GET}, which managed Redis services often disable):
 * <ul>
 * <li>A policy other than {@code noeviction} lets Redis delete a job's hash, its lock or its fencing token under memory
 * pressure, so that an accepted job vanishes or a token goes back (BullMQ warns of the same at start-up). Unless
 * {@code fq.redis.memory.allow-eviction=true}, this instance then runs no workers (they start only once a reading says
 * {@code noeviction}, and stop taking jobs when a later one does not) and its {@code redis-memory} readiness check is
 * down, with the reason and the fix in its log.</li>
 * <li>Above {@code fq.redis.memory.max-ratio} of {@code maxmemory}, a new job is refused before it is added
 * ({@link #requireRoom()}, {@code 503 redis_full}) rather than accepted and then failing inside Redis.</li>
 * </ul>
 */
@Startup
@ApplicationScoped
public class RedisMemory {

    private static final Logger LOG = Logger.getLogger(RedisMemory.class);

    private final SharedConnection redis;
    private final Vertx vertx;
    private final double maxMemoryRatio;
    private final boolean allowEviction;
    private final long timer;
    private final AtomicBoolean reading = new AtomicBoolean();
    private final List<Consumer<Boolean>> listeners = new CopyOnWriteArrayList<>();
    private volatile MemoryState state;
    /** Whether workers may run, as last told to the listeners; {@code null} before the first reading. */
    private Boolean workPermitted;

    public RedisMemory(SharedConnection redis, RedisKeysConfig config, Vertx vertx) {
        this.redis = redis;
        this.vertx = vertx;
        this.maxMemoryRatio = config.memory().maxRatio();
        this.allowEviction = config.memory().allowEviction();
        this.timer = vertx.setPeriodic(config.memory().checkInterval().toMillis(), id -> read());
        read();
    }

    /** @return what Redis last said of its memory; empty before it first answered */
    public Optional<MemoryState> state() {
        return Optional.ofNullable(state);
    }

    /**
     * @return whether the last reading's policy stops this instance's workers: a policy other than {@code noeviction}
     *         without {@code fq.redis.memory.allow-eviction}; {@code false} before the first reading
     */
    public boolean refusesPolicy() {
        MemoryState now = state;
        return now != null && now.evicts() && !allowEviction;
    }

    /**
     * Checks, before a new job is added, that Redis has room for it, as last read (no Redis call).
     *
     * @throws RedisFullException when Redis's {@code used_memory} is at or above {@code fq.redis.memory.max-ratio} of
     *         its {@code maxmemory}
     */
    public void requireRoom() {
        MemoryState now = state;
        if (now != null && full(now)) {
            throw new RedisFullException(String.format("Redis is nearly full (%d of its maxmemory %d bytes used, "
                    + "fq.redis.memory.max-ratio %s): no new job is accepted until it has room", now.usedMemory(),
                    now.maxMemory(), maxMemoryRatio));
        }
    }

    /**
     * Tells {@code listener} whether workers may run: now when Redis was read already, then at each change.
     *
     * @param listener told {@code true} when the policy is {@code noeviction} (or eviction is allowed), {@code false}
     *        otherwise; called on an event loop, or on the caller's thread for the current value; must not block
     */
    public synchronized void onWorkPermitted(Consumer<Boolean> listener) {
        listeners.add(listener);
        if (workPermitted != null) {
            listener.accept(workPermitted);
        }
    }

    private void read() {
        if (!reading.compareAndSet(false, true)) {
            return;
        }
        redis.send(Request.cmd(Command.INFO).arg("memory")).subscribe().with(reply -> {
            reading.set(false);
            update(MemoryState.of(reply.toString()));
        }, failure -> {
            reading.set(false);
            LOG.debugf("cannot read Redis's memory (INFO memory): %s", Failures.describe(failure));
        });
    }

    private boolean full(MemoryState memory) {
        return memory.maxMemory() > 0 && memory.usedRatio() >= maxMemoryRatio;
    }

    private synchronized void update(MemoryState now) {
        MemoryState before = state;
        state = now;
        if (full(now) && (before == null || !full(before))) {
            LOG.warnf("Redis is nearly full (%d of its maxmemory %d bytes used, fq.redis.memory.max-ratio %s): new jobs "
                    + "are refused (503 redis_full) until it has room", now.usedMemory(), now.maxMemory(), maxMemoryRatio);
        } else if (!full(now) && before != null && full(before)) {
            LOG.infof("Redis has room again (%d of its maxmemory %d bytes used): new jobs are accepted",
                    now.usedMemory(), now.maxMemory());
        }
        boolean permitted = !now.evicts() || allowEviction;
        if (before == null || !before.policy().equals(now.policy())) {
            logPolicy(now);
        }
        if (workPermitted == null || workPermitted != permitted) {
            workPermitted = permitted;
            listeners.forEach(listener -> listener.accept(permitted));
        }
    }

    private void logPolicy(MemoryState now) {
        if (!now.evicts()) {
            if (workPermitted != null && !workPermitted) {
                LOG.infof("Redis's maxmemory-policy is %s now: workers run again", now.policy());
            }
        } else if (allowEviction) {
            LOG.warnf("Redis's maxmemory-policy is %s: when Redis is full it deletes keys, which may lose an accepted "
                    + "job or let a fencing token go back; workers run anyway (fq.redis.memory.allow-eviction=true)",
                    now.policy());
        } else {
            LOG.errorf("Redis's maxmemory-policy is %s: when Redis is full it deletes keys, which may lose an accepted "
                    + "job or let a fencing token go back, so this instance runs no workers and is not ready. Set "
                    + "`maxmemory-policy noeviction` (CONFIG SET maxmemory-policy noeviction, redis.conf, or your "
                    + "provider's parameter group), or accept the risk with fq.redis.memory.allow-eviction=true", now.policy());
        }
    }

    /** Stops reading Redis's memory (the bean's end; also for an instance made by hand). */
    @PreDestroy
    public void close() {
        vertx.cancelTimer(timer);
    }
}

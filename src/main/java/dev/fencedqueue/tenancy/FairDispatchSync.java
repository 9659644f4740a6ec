package dev.fencedqueue.tenancy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.CostUnit;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.WorkerManager;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Keeps what fair dispatch reads in the hash slot of each queue this instance serves ({@code fairShare.lua}): the
 * tenants' weights ({@link Tenants#syncWeights}) and the queue's cost unit (its meta hash's {@code costUnit},
 * {@link JobProcessor#costUnit()}). At startup, after each change of a tenant made through this instance
 * ({@link #syncNow}), and every {@link #PERIOD} (a change made through another instance that serves other queues, a
 * Redis that lost the keys).
 */
@ApplicationScoped
public class FairDispatchSync {

    /** How often the weights are copied again. */
    static final Duration PERIOD = Duration.ofSeconds(30);

    private static final Logger LOG = Logger.getLogger(FairDispatchSync.class);

    private final Tenants tenants;
    private final WorkerManager workers;
    private final Queues queues;
    private final SharedConnection redis;
    private volatile long timer = -1;

    public FairDispatchSync(Tenants tenants, WorkerManager workers, Queues queues, SharedConnection redis) {
        this.tenants = tenants;
        this.workers = workers;
        this.queues = queues;
        this.redis = redis;
    }

    void start(@Observes StartupEvent event, Vertx vertx) {
        syncInBackground();
        timer = vertx.setPeriodic(PERIOD.toMillis(), id -> syncInBackground());
    }

    void stop(@Observes ShutdownEvent event, Vertx vertx) {
        vertx.cancelTimer(timer);
    }

    /**
     * @return completes once the weights are copied into every queue this instance serves; fails with
     *         {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable
     */
    public Uni<Void> syncNow() {
        return tenants.syncWeights(workers.processedQueues());
    }

    /**
     * Writes each served queue's cost unit into its meta hash ({@code slot time} is the absence of the field): what
     * its processor says now ({@link JobProcessor#costUnit()}).
     *
     * @return completes once written; fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis
     *         is unreachable
     */
    public Uni<Void> syncCostUnits() {
        List<Uni<Response>> writes = new ArrayList<>();
        workers.costUnits().forEach((queue, unit) -> {
            String meta = queues.keys(queue).meta();
            writes.add(redis.send(unit == CostUnit.SLOT_TIME ? Request.cmd(Command.HDEL).arg(meta).arg("costUnit")
                    : Request.cmd(Command.HSET).arg(meta).arg("costUnit").arg(unit.value())));
        });
        return writes.isEmpty() ? Uni.createFrom().voidItem() : Uni.join().all(writes).andFailFast().replaceWithVoid();
    }

    private void syncInBackground() {
        syncNow().chain(this::syncCostUnits).subscribe().with(ignored -> {
        }, failure -> LOG.debugf("the tenants' weights and the queues' cost units were not written again: %s",
                Failures.describe(failure)));
    }
}

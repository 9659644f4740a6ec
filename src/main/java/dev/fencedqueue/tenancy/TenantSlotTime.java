package dev.fencedqueue.tenancy;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.fencedqueue.Failures;
import dev.fencedqueue.tenancy.SlotTime;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerListener;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Adds the slot time this instance's workers' attempts held, by tenant, to the fleet's ({@link SlotTime}) every
 * {@link SlotTime#BUCKET_MILLIS} ms, and once more when a worker stops: the share of slots the tenants' views show.
 */
@ApplicationScoped
public class TenantSlotTime implements WorkerListener {

    private static final Logger LOG = Logger.getLogger(TenantSlotTime.class);

    private final SlotTime slotTime;
    private final Vertx vertx;
    private final Set<Worker> workers = ConcurrentHashMap.newKeySet();
    private final long timer;

    public TenantSlotTime(SlotTime slotTime, Vertx vertx) {
        this.slotTime = slotTime;
        this.vertx = vertx;
        this.timer = vertx.setPeriodic(SlotTime.BUCKET_MILLIS, id -> workers.forEach(this::flush));
    }

    /** Adds the worker's slot time from now on, every {@link SlotTime#BUCKET_MILLIS} ms. */
    @Override
    public void created(Worker worker) {
        workers.add(worker);
    }

    /**
     * Adds the last slot time of a worker that stopped, and no more after that.
     *
     * @return completes once the worker's last slot time was added (or could not be: it is then lost)
     */
    @Override
    public Uni<Void> stopped(Worker worker) {
        workers.remove(worker);
        return add(worker).onFailure().recoverWithNull();
    }

    private void flush(Worker worker) {
        add(worker).subscribe().with(ignored -> {
        }, failure -> LOG.debugf("worker %s: its slot time was not added: %s", worker.id(), Failures.describe(failure)));
    }

    private Uni<Void> add(Worker worker) {
        return worker.takeSlotTime().chain(
                (Map<String, Long> millis) -> slotTime.add(worker.queue(), millis, System.currentTimeMillis()));
    }

    @PreDestroy
    void close() {
        vertx.cancelTimer(timer);
    }
}

package dev.fencedqueue.scheduler;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerListener;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Runs a {@link SchedulerTicker} beside every worker while it runs ({@link WorkerListener}): each worker of a queue
 * turns the queue's due scheduler ticks into jobs, each tick still one job fleet-wide. A tick later than the worker's
 * {@code fq.worker.scheduler.missed-after} counts as missed.
 */
@ApplicationScoped
public class SchedulerTickers implements WorkerListener {

    private final DueTicks ticks;
    private final Vertx vertx;
    private final Map<Worker, SchedulerTicker> tickers = new ConcurrentHashMap<>();

    /**
     * @param ticks produces the due ticks, not {@code null}
     * @param vertx the timers between two looks, not {@code null}
     */
    public SchedulerTickers(DueTicks ticks, Vertx vertx) {
        this.ticks = ticks;
        this.vertx = vertx;
    }

    /** Starts looking at the worker's queue's due ticks, on the worker's context. */
    @Override
    public void started(Worker worker) {
        SchedulerTicker ticker = new SchedulerTicker(ticks, worker.keys(), vertx,
                worker.options().schedulerMissedAfter().toMillis());
        SchedulerTicker before = tickers.put(worker, ticker);
        if (before != null) {
            before.stop();
        }
        ticker.start();
    }

    /** Stops looking, on the worker's context; a look under way finishes its writes. */
    @Override
    public void stopping(Worker worker) {
        SchedulerTicker ticker = tickers.remove(worker);
        if (ticker != null) {
            ticker.stop();
        }
    }
}

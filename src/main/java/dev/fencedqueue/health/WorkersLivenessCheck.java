package dev.fencedqueue.health;

import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import dev.fencedqueue.telemetry.WorkerStats;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

/** Live while every worker of this instance is running; shows each worker's counters. */
@Liveness
@ApplicationScoped
public class WorkersLivenessCheck implements HealthCheck {

    private final WorkerManager workers;

    public WorkersLivenessCheck(WorkerManager workers) {
        this.workers = workers;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder builder = HealthCheckResponse.named("workers").up();
        for (Worker worker : workers.workers()) {
            WorkerStats stats = worker.stats();
            builder.withData(worker.queue() + "/" + worker.id(), "active=" + stats.active() + " completed="
                    + stats.completed() + " failed=" + stats.failed() + " rejectedWrites=" + stats.rejectedWrites());
            if (!worker.isRunning()) {
                builder.down();
            }
        }
        return builder.build();
    }
}

package dev.fencedqueue.health;

import dev.fencedqueue.worker.WorkerManager;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Not ready once the instance began to shut down: its workers hand their jobs back and take no new ones. */
@Readiness
@ApplicationScoped
public class WorkersReadinessCheck implements HealthCheck {

    private final WorkerManager workers;

    public WorkersReadinessCheck(WorkerManager workers) {
        this.workers = workers;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("shutdown").status(!workers.isShuttingDown()).build();
    }
}

package dev.fencedqueue.notifications;

import dev.fencedqueue.bulk.BulkControl;
import dev.fencedqueue.bulk.BulkMetrics;
import dev.fencedqueue.bulk.ChunkedProcessor;
import dev.fencedqueue.bulk.PostgresCursors;
import dev.fencedqueue.config.BulkConfig;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.WorkerManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

/** Makes the fan-out a {@link JobProcessor} bean, so that every instance runs a worker on its queue. */
@ApplicationScoped
public class NotificationWorkers {

    @Produces
    @ApplicationScoped
    JobProcessor fanOutProcessor(NotificationFanOut fanOut, BulkControl control, PostgresCursors cursors,
            Queues queues, BulkMetrics metrics, BulkConfig config, WorkerManager workers) {
        return new ChunkedProcessor<>(fanOut, control, cursors, queues, metrics, config, workers.blockingExecutor());
    }
}

package dev.fencedqueue.events;

import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.JobQueue;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** Reads a job's history: all its events, or the valid ones, those a reader should see. */
@ApplicationScoped
public class JobHistory {

    private final JobEventStore store;
    private final ObjectMapper json;

    public JobHistory(JobEventStore store, ObjectMapper json) {
        this.store = store;
        this.json = json;
    }

    /**
     * @param queue the job's queue
     * @param jobId the job id
     * @return every stored event, those of stale epochs (zombies) included, in stream order; fails with
     *         {@link dev.fencedqueue.queue.JobNotFoundException} when there is no such job
     */
    public Uni<List<JobEvent>> all(JobQueue queue, String jobId) {
        return queue.requireJob(jobId).chain(job -> store.readAll(queue.keys(), jobId, null));
    }

    /**
     * @param queue the job's queue
     * @param jobId the job id
     * @return the events a reader should see ({@link ValidHistory}): those of the job's current run and, when it
     *         continued earlier runs ({@code resume}), theirs up to each resume point, in stream order; fails with
     *         {@link dev.fencedqueue.queue.JobNotFoundException} when there is no such job
     */
    public Uni<List<JobEvent>> valid(JobQueue queue, String jobId) {
        return queue.requireJob(jobId).chain(job -> store.readAll(queue.keys(), jobId, null))
                .map(events -> ValidHistory.of(events, json));
    }
}

package dev.fencedqueue.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.bulk.BulkControl;
import dev.fencedqueue.notifications.NotificationStore;
import dev.fencedqueue.queue.JobQueue;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Builds {@link BulkJobView}s, for {@code GET /notifications/jobs/{jobId}} and the operator API's job detail: the
 * job from Redis, its abort flag and throttle, and its committed cursor from the sink (the truth).
 */
@ApplicationScoped
public class BulkJobViews {

    private final BulkControl control;
    private final NotificationStore store;
    private final ObjectMapper json;

    public BulkJobViews(BulkControl control, NotificationStore store, ObjectMapper json) {
        this.control = control;
        this.store = store;
        this.json = json;
    }

    /**
     * @param queue the chunked queue
     * @param jobId a job id
     * @return the view; fails with {@link dev.fencedqueue.queue.JobNotFoundException} (404) for an unknown job
     */
    public Uni<BulkJobView> of(JobQueue queue, String jobId) {
        return Uni.combine().all().unis(queue.requireJob(jobId), control.gate(queue.name(), jobId)).asTuple()
                .chain(both -> store.committed(jobId, channelOf(both.getItem1().data()))
                        .map(committed -> BulkJobView.of(both.getItem1(), committed.orElse(null), both.getItem2(), json)));
    }

    private String channelOf(String data) {
        try {
            return json.readTree(data).path("channel").asText("");
        } catch (JsonProcessingException e) {
            return "";
        }
    }
}

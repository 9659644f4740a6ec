package dev.fencedqueue.api.admin;

import java.io.IOException;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobStateConflictException;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.flow.FlowNode;
import dev.fencedqueue.flow.FlowReader;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * What {@code POST /admin/flows} answers for a root whose id names an existing job: the same flow again (a retried
 * request) is answered as it stands, another flow under that id is a conflict. A root's id names one flow, as an
 * {@code Idempotency-Key} names one research job.
 */
@ApplicationScoped
public class ExistingFlows {

    private final Queues queues;
    private final FlowReader reader;
    private final ObjectMapper json;

    public ExistingFlows(Queues queues, FlowReader reader, ObjectMapper json) {
        this.queues = queues;
        this.reader = reader;
        this.json = json;
    }

    /**
     * Compares a requested flow with the existing job of its root's id: the same name, the same data (as JSON, absent
     * data as {@code null}) and the same children's ids.
     *
     * @param requested the flow of the request, must not be {@code null}
     * @param root the ids the request gives its root and children, must not be {@code null}
     * @return completes when the existing job is that flow; fails with {@link JobStateConflictException} naming the job
     *         when it is another job (or is gone again since the add found it)
     */
    public Uni<Void> requireSame(FlowJob requested, FlowNode root) {
        JobQueue queue = queues.queue(root.queue());
        return queue.getJob(root.jobId()).chain(job -> {
            if (job == null || !job.name().equals(requested.name()) || !sameData(job, requested.data())) {
                return Uni.createFrom().failure(conflict(root, job));
            }
            Set<String> asked = root.children().stream().map(child -> child.queue() + "/" + child.jobId())
                    .collect(Collectors.toSet());
            return reader.children(queue.keys(), root.jobId()).map(children -> children.stream()
                    .map(child -> child.queue() + "/" + child.jobId()).collect(Collectors.toSet())).map(existing -> {
                        if (!existing.equals(asked)) {
                            throw conflict(root, job);
                        }
                        return null;
                    });
        });
    }

    private boolean sameData(Job job, JsonNode requested) {
        try {
            JsonNode stored = job.data() == null ? NullNode.getInstance() : json.readTree(job.data());
            return Objects.equals(stored, requested == null ? NullNode.getInstance() : requested);
        } catch (IOException e) {
            return false;
        }
    }

    private static JobStateConflictException conflict(FlowNode root, Job job) {
        String what = job == null ? "was added by another request a moment ago"
                : "already exists (`" + job.name() + "`, " + job.state().value() + ") with another name, data or "
                        + "children";
        return new JobStateConflictException("job `" + root.jobId() + "` of queue `" + root.queue() + "` " + what
                + ": a flow's root id names one flow; add this flow under another `options.jobId`");
    }
}

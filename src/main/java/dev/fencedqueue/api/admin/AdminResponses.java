package dev.fencedqueue.api.admin;

import java.util.List;

/** The bodies of the operator API's maintenance answers. */
public final class AdminResponses {

    private AdminResponses() {
    }

    /**
     * The answer to {@code POST /admin/queues/{queue}/pause} and {@code .../resume}.
     *
     * @param queue the queue name
     * @param paused whether the queue is paused now
     * @param changed {@code false} when it already was
     */
    public record Paused(String queue, boolean paused, boolean changed) {
    }

    /**
     * The answer to {@code POST /admin/queues/{queue}/clean}.
     *
     * @param queue the queue name
     * @param state the state cleaned
     * @param removed how many jobs were removed
     * @param jobIds their ids
     */
    public record Cleaned(String queue, String state, int removed, List<String> jobIds) {
    }

    /**
     * The answer to {@code POST /admin/queues/{queue}/drain}.
     *
     * @param queue the queue name
     * @param removed how many waiting (and, if asked, delayed) jobs were removed
     */
    public record Drained(String queue, long removed) {
    }

    /**
     * The answer to {@code DELETE /admin/queues/{queue}}.
     *
     * @param queue the queue name
     * @param deletedKeys how many Redis keys were deleted
     */
    public record Obliterated(String queue, long deletedKeys) {
    }

    /**
     * The answer to {@code DELETE /admin/queues/{queue}/jobs/{jobId}}.
     *
     * @param jobId the job id
     * @param previousState the state the job was in
     */
    public record Removed(String jobId, String previousState) {
    }
}

package dev.fencedqueue.api;

/**
 * The body of a successful {@code POST /research/abort/{jobId}}.
 *
 * @param jobId the job id
 * @param state always {@code aborted}
 * @param previousState the state the job was in
 * @param wasRunning whether a worker was running it (its LLM call is being closed)
 */
public record AbortResponse(String jobId, String state, String previousState, boolean wasRunning) {
}

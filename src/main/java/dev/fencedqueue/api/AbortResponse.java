package dev.fencedqueue.api;

/**
 * The body of a successful abort ({@code POST /research/abort/{jobId}}, {@code POST /admin/.../abort}).
 *
 * @param jobId the job id
 * @param state {@code aborted}, or {@code aborting} for a running chunked job, which stops at its next chunk
 *        boundary
 * @param previousState the state the job was in
 * @param wasRunning whether a worker was running it (its LLM call is being closed)
 */
public record AbortResponse(String jobId, String state, String previousState, boolean wasRunning) {
}

package dev.fencedqueue.bulk;

/**
 * How one chunked job runs, read from its data when an attempt starts.
 *
 * @param chunkSize items per chunk (one sink transaction each), at least 1
 * @param throttle the pacing the job started with (an operator may change it while it runs), not {@code null}
 * @param singleFlightKey at most one running job per key (for a fan-out: its channel); {@code null}: none
 */
public record ChunkPlan(int chunkSize, Throttle throttle, String singleFlightKey) {

    public ChunkPlan {
        if (chunkSize < 1) {
            throw new IllegalArgumentException("`chunkSize` must be at least 1, was " + chunkSize);
        }
        if (throttle == null) {
            throw new IllegalArgumentException("`throttle` must not be null");
        }
    }
}

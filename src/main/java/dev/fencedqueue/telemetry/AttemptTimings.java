package dev.fencedqueue.telemetry;

/**
 * Where a worker reports how long its jobs waited and ran ({@link WorkerMetrics} makes histograms of them).
 */
interface AttemptTimings {

    /** Reports nothing. */
    AttemptTimings NONE = new AttemptTimings() {
        @Override
        public void waited(String tenant, long millis) {
        }

        @Override
        public void ran(String outcome, long nanos) {
        }
    };

    /**
     * @param tenant the job's tenant ({@link dev.fencedqueue.queue.TenantIds}), not {@code null}
     * @param millis how long the job waited from its add (or the end of its delay) to its first attempt, ms
     */
    void waited(String tenant, long millis);

    /**
     * @param outcome how the attempt ended: {@code result}, {@code failed} (a timeout included), {@code zombie} (it
     *        no longer owned the job), {@code handed-back} (the instance stopped), {@code revoked} (the worker was told
     *        to stop: the job was aborted, or the stalled-job check gave it to another worker) or {@code rate-limited}
     *        (handed back until a rate limit outside the queue admits it, {@code RateLimitedException})
     * @param nanos how long it ran, from its activation to its end, ns
     */
    void ran(String outcome, long nanos);
}

package dev.fencedqueue.research;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.Backoff;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.KeepJobs;

/** The options every research job gets, a deep research job's children included ({@code fq.research.*}). */
public final class ResearchJobs {

    private ResearchJobs() {
    }

    /**
     * @param config the research configuration
     * @return attempts, exponential backoff, the attempt timeout and how long completed and failed jobs are kept, as
     *         configured; no job id
     */
    public static JobOptions options(ResearchConfig config) {
        return JobOptions.defaults().withAttempts(config.attempts())
                .withBackoff(Backoff.exponential(config.backoffDelay()))
                .withTimeout(config.jobTimeout())
                .withRemoveOnComplete(new KeepJobs(config.keepCompletedCount(), config.keepCompletedFor()))
                .withRemoveOnFail(new KeepJobs(config.keepFailedCount(), config.keepFailedFor()));
    }
}

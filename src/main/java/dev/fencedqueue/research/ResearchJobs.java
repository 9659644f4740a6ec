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
        return JobOptions.defaults().withAttempts(config.attempts().max())
                .withBackoff(Backoff.exponential(config.attempts().backoffDelay()))
                .withTimeout(config.attempts().timeout())
                .withRemoveOnComplete(new KeepJobs(config.removeOnComplete().count(), config.removeOnComplete().age()))
                .withRemoveOnFail(new KeepJobs(config.removeOnFail().count(), config.removeOnFail().age()));
    }
}

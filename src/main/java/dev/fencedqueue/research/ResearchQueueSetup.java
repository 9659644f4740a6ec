package dev.fencedqueue.research;

import dev.fencedqueue.Failures;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.Queues;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Applies the research queue's fleet-wide limits ({@code fq.research.global-concurrency},
 * {@code fq.research.rate-limit.max}/{@code -duration}) to the queue in Redis at startup. Every instance
 * does it, so the configuration of the last instance started wins; keep it the same across a fleet.
 */
@ApplicationScoped
public class ResearchQueueSetup {

    private static final Logger LOG = Logger.getLogger(ResearchQueueSetup.class);

    void apply(@Observes StartupEvent event, Queues queues, ResearchConfig config) {
        JobQueue queue = queues.queue(config.queue());
        Uni.combine().all()
                .unis(queue.setGlobalConcurrency(config.globalConcurrency().orElse(null)),
                        queue.setRateLimit(config.rateLimit().max().orElse(null), config.rateLimit().duration()))
                .discardItems()
                .subscribe().with(
                        ok -> LOG.debugf("queue %s: global concurrency %s, rate limit %s per %s", queue.name(),
                                config.globalConcurrency().map(String::valueOf).orElse("none"),
                                config.rateLimit().max().map(String::valueOf).orElse("none"), config.rateLimit().duration()),
                        failure -> LOG.warnf("could not apply the limits of queue %s (is Redis up?): %s", queue.name(),
                                Failures.describe(failure)));
    }
}

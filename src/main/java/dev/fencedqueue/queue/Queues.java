package dev.fencedqueue.queue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Hands out the {@link JobQueue} of a queue name (BullMQ's {@code new Queue(name)}); queues are cheap views over Redis
 * keys. Flows ({@code FlowProducer}) and job schedulers ({@code JobSchedulers}) are beans of their own packages.
 */
@ApplicationScoped
public class Queues {

    private final QueueContexts contexts;
    private final AbortFollowUp abortFollowUp;
    private final Map<String, JobQueue> queues = new ConcurrentHashMap<>();

    /**
     * @param contexts what the views of each queue share, not {@code null}
     * @param abortFollowUp what follows the abort of a job in a flow, not {@code null}
     */
    public Queues(QueueContexts contexts, AbortFollowUp abortFollowUp) {
        this.contexts = contexts;
        this.abortFollowUp = abortFollowUp;
    }

    /**
     * @param name the queue name: 1 to 100 of {@code A-Z a-z 0-9 . _ -}
     * @return the queue
     * @throws IllegalArgumentException when the name is not valid
     */
    public JobQueue queue(String name) {
        return queues.computeIfAbsent(name, n -> new JobQueue(contexts.context(n), abortFollowUp));
    }

    /**
     * A view of a queue for a one-off request (an operator naming any queue): the shared instance when the
     * queue is already in use here, else a fresh view that is not kept, so that looking up arbitrary names does
     * not grow this registry.
     *
     * @param name the queue name: 1 to 100 of {@code A-Z a-z 0-9 . _ -}, not {@code null}
     * @return the queue
     * @throws IllegalArgumentException when the name is not valid
     * @throws NullPointerException when the name is {@code null}
     */
    public JobQueue lookup(String name) {
        JobQueue queue = queues.get(name);
        return queue != null ? queue : new JobQueue(contexts.context(name), abortFollowUp);
    }
}

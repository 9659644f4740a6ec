package dev.fencedqueue.queue.flow;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Flows (BullMQ's parent and child jobs) over all queues, as a worker's jobs use them: {@link FlowProducer} adds a
 * parent with its children (and a running job's children), {@link FlowRelay} delivers each child's ending to its
 * parent and finishes what a crash left half done, {@link FlowReader} reads a parent's children. A flow may span
 * queues, and so Redis Cluster nodes: each step is one script in one queue, and what links two steps (a child to add,
 * a child's ending) is written in the first step's script and removed only after the second, so a crash between them
 * delays a flow but never breaks it.
 */
@ApplicationScoped
public class Flows {

    private final FlowProducer producer;
    private final FlowRelay relay;
    private final FlowReader reader;

    /**
     * @param producer adds flows, not {@code null}
     * @param relay delivers children's endings, not {@code null}
     * @param reader reads a parent's children, not {@code null}
     */
    public Flows(FlowProducer producer, FlowRelay relay, FlowReader reader) {
        this.producer = producer;
        this.relay = relay;
        this.reader = reader;
    }

    /** @return adds flows, and a running job's children */
    public FlowProducer producer() {
        return producer;
    }

    /** @return delivers children's endings to their parents */
    public FlowRelay relay() {
        return relay;
    }

    /** @return reads a parent's children */
    public FlowReader reader() {
        return reader;
    }
}

package dev.fencedqueue.queue;

/**
 * Flows (BullMQ's parent and child jobs) over all queues: {@link FlowProducer} adds a parent with its children (and
 * a running job's children), {@link FlowRelay} delivers each child's ending to its parent and finishes what a crash
 * left half done, {@link FlowReader} reads a parent's children. A flow may span queues, and so Redis Cluster nodes:
 * each step is one script in one queue, and what links two steps (a child to add, a child's ending) is written in
 * the first step's script and removed only after the second, so a crash between them delays a flow but never
 * breaks it.
 */
public final class Flows {

    private final FlowProducer producer;
    private final FlowRelay relay;
    private final FlowReader reader;

    Flows(Queues queues) {
        this.producer = new FlowProducer(queues);
        this.relay = new FlowRelay(queues, producer);
        this.reader = new FlowReader(queues);
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

package dev.fencedqueue.events;

/**
 * What one SSE subscriber may see: events of one epoch at a time (DESIGN invariant 6). The first event of a newer
 * epoch is preceded by a {@code reset}; events of an older epoch than the one shown are dropped; after the terminal
 * event nothing more passes. Not thread-safe: one per subscriber, fed in stream order.
 */
final class EpochGate {

    /** What to send for an event. */
    enum Admission {
        /** nothing: the event belongs to an older epoch, or the stream has ended */
        DROP,
        /** the event */
        SEND,
        /** a {@code reset} announcing the event's epoch ({@link #previousEpoch()} before it), then the event */
        RESET_THEN_SEND
    }

    private long epoch;
    private long previousEpoch = -1;
    private boolean ended;

    /** @param epoch the epoch the client has already seen (from its Last-Event-ID), or -1 when none */
    EpochGate(long epoch) {
        this.epoch = epoch;
    }

    /**
     * @param event the next event of the job's stream
     * @return what to send for it
     */
    Admission admit(JobEvent event) {
        long token = event.fencingToken();
        if (ended || (epoch >= 0 && token < epoch)) {
            return Admission.DROP;
        }
        Admission admission = epoch >= 0 && token > epoch ? Admission.RESET_THEN_SEND : Admission.SEND;
        previousEpoch = epoch;
        epoch = token;
        ended = event.isTerminal();
        return admission;
    }

    /** @return the epoch shown before the last event admitted, -1 when none */
    long previousEpoch() {
        return previousEpoch;
    }

    /** @return whether the terminal event has passed: nothing more will */
    boolean ended() {
        return ended;
    }
}

package dev.fencedqueue.events;

/**
 * What one SSE subscriber may see: events of one epoch at a time (a reader never sees an older epoch after a newer
 * one). The first event of a newer epoch is preceded by a {@code reset}; events of an older epoch than the one shown
 * are dropped; after the terminal event nothing more passes. A {@code started} event always begins a new run: one that
 * arrives under the epoch already shown (a fencing token handed out again after Redis lost the activation that first
 * had it, and a Redis clock behind the lost one's) is a new attempt and gets a {@code reset} too, so that two runs
 * never show under one epoch. Not thread-safe: one per subscriber, fed in stream order.
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
    private boolean shown;
    private boolean unknownPosition;
    private boolean ended;

    /** @param epoch the epoch the client has already seen (from its Last-Event-ID), or -1 when none */
    EpochGate(long epoch) {
        this.epoch = epoch;
        this.shown = epoch >= 0;
    }

    /**
     * @return the gate of a client whose {@code Last-Event-ID} names an entry the stream does not hold (Redis lost it,
     *         or the stream was trimmed past it): what it has shown is unknown, so the first event passed is preceded
     *         by a {@code reset} (its previous epoch -1), and the client starts over
     */
    static EpochGate afterUnknownPosition() {
        EpochGate gate = new EpochGate(-1);
        gate.unknownPosition = true;
        return gate;
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
        boolean newAttempt = shown && token == epoch && "started".equals(event.type());
        Admission admission = unknownPosition || epoch >= 0 && (token > epoch || newAttempt) ? Admission.RESET_THEN_SEND
                : Admission.SEND;
        unknownPosition = false;
        previousEpoch = epoch;
        epoch = token;
        shown = true;
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

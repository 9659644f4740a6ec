package dev.fencedqueue.sse;

import dev.fencedqueue.events.JobEvent;

/**
 * What one SSE subscriber may see: events of one epoch at a time (a reader never sees an older epoch after a newer
 * one). A newer run's {@code started} is held until the run's next event says what the run does: a {@code resume}
 * (the run continues the job's committed events) is sent in its place, and the reader keeps what it has; anything
 * else (the run starts over) is preceded by a {@code reset} and the held {@code started}. Events of an older epoch
 * than the one shown are dropped; after the terminal event nothing more passes. A {@code started} event always begins
 * a new run: one that arrives under the epoch already shown (a fencing token handed out again after Redis lost the
 * activation that first had it, and a Redis clock behind the lost one's) is a new attempt and is held the same way,
 * so that two runs never show under one epoch. Not thread-safe: one per subscriber, fed in stream order.
 */
final class EpochGate {

    /** What to send for an event. */
    enum Admission {
        /** nothing: the event belongs to an older epoch, or the stream has ended */
        DROP,
        /** the event */
        SEND,
        /**
         * a {@code reset} announcing the event's epoch ({@link #previousEpoch()} before it), then the held
         * {@code started} of the event's run when there is one ({@link #released()}, also with {@link #SEND}), then
         * the event
         */
        RESET_THEN_SEND,
        /** nothing yet: a newer run's {@code started}, held until the run's next event */
        HOLD,
        /** the event, a {@code resume}: the run continues what the reader has (its {@code started} is not sent) */
        RESUME
    }

    private long epoch;
    private long previousEpoch = -1;
    private boolean shown;
    private boolean unknownPosition;
    private boolean ended;
    private JobEvent held;
    private JobEvent released;

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
     * Holds a run's {@code started} that a replay ends with, as {@link #admit} holds a newer run's: its next event says
     * whether the run continues what came before (which then waits with it) or starts over.
     *
     * @param started the run's {@code started} event
     */
    void hold(JobEvent started) {
        held = started;
    }

    /**
     * @param event the next event of the job's stream
     * @return what to send for it
     */
    Admission admit(JobEvent event) {
        released = null;
        long token = event.fencingToken();
        if (ended || (epoch >= 0 && token < epoch) || (held != null && token < held.fencingToken())) {
            return Admission.DROP;
        }
        boolean starts = "started".equals(event.type());
        boolean resumes = "resume".equals(event.type());
        if (held != null) {
            JobEvent start = held;
            held = null;
            if (token == start.fencingToken() && !starts) { // the held run's first event says what it does
                if (resumes) {
                    return show(event, Admission.RESUME);
                }
                released = start;
                // A reader that has shown nothing needs no reset.
                return show(event, shown || unknownPosition ? Admission.RESET_THEN_SEND : Admission.SEND);
            }
            // A newer run (or attempt) started before the held one wrote anything: the held one is history.
        }
        boolean newAttempt = shown && token == epoch && starts;
        boolean newRun = unknownPosition || epoch >= 0 && (token > epoch || newAttempt);
        if (newRun && starts) {
            held = event;
            return Admission.HOLD;
        }
        if (newRun && resumes) {
            // A reader whose position was the run's start, or one whose last event Redis lost after the resume point
            // (it drops what it has after the point, as the resume asks).
            return show(event, Admission.RESUME);
        }
        return show(event, newRun ? Admission.RESET_THEN_SEND : Admission.SEND);
    }

    private Admission show(JobEvent event, Admission admission) {
        unknownPosition = false;
        previousEpoch = epoch;
        epoch = event.fencingToken();
        shown = true;
        ended = event.isTerminal();
        return admission;
    }

    /**
     * @return after the first event of a held run that starts over, the held {@code started}, to send before the event
     *         (after the {@code reset}); {@code null} otherwise
     */
    JobEvent released() {
        return released;
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

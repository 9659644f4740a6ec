package dev.fencedqueue.events;

import java.util.ArrayList;
import java.util.List;

/**
 * What one SSE subscriber may see: events of one epoch at a time (DESIGN invariant 6). The first event of
 * a newer epoch is preceded by a {@code reset}; events of an older epoch than the one shown are dropped;
 * after the terminal event nothing more passes and {@link #END} marks the end. Not thread-safe: one per
 * subscriber, fed in stream order.
 */
final class EpochGate {

    /** Marks the end of a subscriber's stream; never sent to the client. */
    static final StreamMessage END = new StreamMessage(null, "end", null, null);

    private long epoch;
    private boolean ended;

    /** @param epoch the epoch the client has already seen (from its Last-Event-ID), or -1 when none */
    EpochGate(long epoch) {
        this.epoch = epoch;
    }

    /**
     * @param event the next event of the job's stream
     * @return the messages to send for it: none, the event, or a reset then the event, plus {@link #END}
     *         after a terminal event
     */
    List<StreamMessage> accept(JobEvent event) {
        long token = event.fencingToken();
        if (ended || (epoch >= 0 && token < epoch)) {
            return List.of();
        }
        List<StreamMessage> messages = new ArrayList<>(3);
        if (epoch >= 0 && token > epoch) {
            messages.add(StreamMessage.reset(token, epoch));
        }
        epoch = token;
        messages.add(StreamMessage.of(event));
        if (event.isTerminal()) {
            ended = true;
            messages.add(END);
        }
        return messages;
    }
}

package dev.fencedqueue.sse;

import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.events.JobEventData;
import dev.fencedqueue.events.StreamIds;
import dev.fencedqueue.events.ValidHistory;
import dev.fencedqueue.queue.Job;
import io.vertx.core.buffer.Buffer;

/**
 * What one reader is shown of one job's stream, through its {@link EpochGate}: the replay (from the start, or after the
 * reader's {@code Last-Event-ID}), then the live events, one epoch at a time. A newer run's {@code started} waits
 * until the run's next event says whether it continues what the reader has ({@code resume}: the kept events up to
 * its resume point are shown) or starts over (a {@code reset}, then the {@code started}). Shows nothing itself: it
 * hands what to show to its {@link Sink}, an SSE response of one job ({@link SseSubscriber}) or one job of a flow's
 * stream ({@link FlowSubscriber}). Not thread-safe: fed in stream order, on one thread.
 */
final class JobStreamView {

    /** Where a view's events go. */
    interface Sink {

        /**
         * @param event an event to show
         * @param frame its shared frame when it came live and was framed once, else {@code null}
         */
        void event(JobEvent event, Buffer frame);

        /** @param reset a {@code reset} message, shown before the first event of a run that starts over */
        void reset(StreamMessage reset);

        /** The job's stream has ended for this reader: its terminal event was shown, or there is none to show. */
        void end();
    }

    private final Sink sink;
    private final ObjectMapper json;
    /** The last id of the replay until a newer live event has passed; {@code null} after. */
    private String replayEnd;
    private EpochGate gate;
    /** The frame of the {@code started} the gate holds, when it came live (replayed events are framed when sent). */
    private Buffer heldFrame;
    /** Replayed events of earlier runs that wait with a held start: sent if its run continues them, else dropped. */
    private List<JobEvent> pendingTail = List.of();

    /**
     * @param sink where the events go
     * @param json the application's object mapper, which reads a {@code resume} event's resume point
     */
    JobStreamView(Sink sink, ObjectMapper json) {
        this.sink = sink;
        this.json = json;
    }

    /**
     * Shows the replay.
     *
     * @param job the job, as read before the replay
     * @param clientEpoch the epoch of the reader's {@code Last-Event-ID}, -1 when none or when the stream does not
     *        hold that entry (then, with a {@code resumeAfter}, the first event shown is preceded by a {@code reset})
     * @param resumeAfter the reader's {@code Last-Event-ID}, or {@code null}
     * @param replay the job's stream after {@code resumeAfter}, in order
     * @return {@code false} when the job has ended with nothing to show (the sink was told to end), else {@code true}
     */
    boolean start(Job job, long clientEpoch, String resumeAfter, List<JobEvent> replay) {
        // Once epoch T is current no event of an older epoch can be appended: older ones are history, but for the
        // committed prefix a run continues (its resume point), which a reader keeps.
        List<JobEvent> current = ValidHistory.of(replay, json);
        if (job != null && job.state().isTerminal() && current.stream().noneMatch(JobEvent::isTerminal)) {
            sink.end();
            return false;
        }
        replayEnd = replay.isEmpty() ? (resumeAfter == null ? "0-0" : resumeAfter) : replay.get(replay.size() - 1).id();
        gate = resumeAfter != null && clientEpoch < 0 ? EpochGate.afterUnknownPosition() : new EpochGate(clientEpoch);
        int last = current.size() - 1;
        if (last > 0 && "started".equals(current.get(last).type())) {
            // The latest run has not said yet whether it continues the earlier runs' events: they wait with its start.
            pendingTail = current.subList(0, last);
            gate.hold(current.get(last));
            current = List.of();
        }
        for (JobEvent event : current) {
            admit(event, null);
        }
        return true;
    }

    /** @param live a live event of the job, after every event handed over before (and after {@link #start}) */
    void live(FramedEvent live) {
        if (replayEnd != null) {
            // The tailer may hand over events that the replay, read after the registration, already held.
            if (StreamIds.compare(live.event().id(), replayEnd) <= 0) {
                return;
            }
            replayEnd = null; // events come in stream order: every later one is newer too
        }
        admit(live.event(), live.frame());
    }

    /** @return whether the terminal event was shown: nothing more will be */
    boolean ended() {
        return gate != null && gate.ended();
    }

    private void admit(JobEvent event, Buffer frame) {
        switch (gate.admit(event)) {
            case DROP -> {
                return;
            }
            case HOLD -> {
                heldFrame = frame; // the gate holds the event; its frame waits here
                return;
            }
            case RESET_THEN_SEND -> sink.reset(StreamMessage.reset(event.fencingToken(), gate.previousEpoch()));
            case RESUME -> {
                String resumeFrom = JobEventData.resumeFrom(event.data(), json);
                for (JobEvent kept : pendingTail) {
                    if (resumeFrom != null && StreamIds.compare(kept.id(), resumeFrom) <= 0 && !kept.isTerminal()) {
                        sink.event(kept, null);
                    }
                }
            }
            case SEND -> {
            }
        }
        JobEvent start = gate.released();
        if (start != null) {
            sink.event(start, heldFrame);
        }
        heldFrame = null;
        pendingTail = List.of();
        sink.event(event, frame);
        if (gate.ended()) {
            sink.end();
        }
    }
}

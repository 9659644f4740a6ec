package dev.fencedqueue.events;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The events of a job a reader should see: those of the current run and, when that run (or the run it continued)
 * resumed, the events of earlier runs up to each resume point. Every event the stream holds passed the fence of its
 * run, so the events up to a run's resume point are one consistent prefix, which a run that announces itself with a
 * {@code resume} event continues; a run that starts over ({@code started} followed by anything else) replaces all
 * that came before. A run's {@code started} is left out once the run resumed: its {@code resume} takes its place, as
 * for a reader ({@code dev.fencedqueue.sse.EpochGate}).
 */
public final class ValidHistory {

    private ValidHistory() {
    }

    /**
     * @param events a job's events in stream order: the whole stream, or the part after what a reader has seen (then
     *        the result is what it should see of that part: a run that continues keeps the reader's events up to its
     *        resume point, one that starts over drops the rest of the earlier runs' events)
     * @param json the application's object mapper, which reads a {@code resume} event's resume point
     * @return the events to show, in stream order; a run whose {@code started} is the last event (it has not yet
     *         said whether it continues) ends the list with that {@code started}. The terminal event of a run that a
     *         newer run continues (an operator's retry of a failed job) is not shown: the job did not end there
     */
    public static List<JobEvent> of(List<JobEvent> events, ObjectMapper json) {
        List<JobEvent> kept = new ArrayList<>(events.size());
        JobEvent started = null; // the latest run's start, until its next event says whether it continues
        long run = Long.MIN_VALUE;
        for (JobEvent event : events) {
            long token = event.fencingToken();
            if (token < run) {
                continue; // an older run's event after a newer run started: refused writes never land, but be safe
            }
            if ("started".equals(event.type())) {
                if (started != null) {
                    kept.add(started); // a run that wrote nothing after its start: a newer run may still continue it
                }
                started = event;
                run = token;
                continue;
            }
            if (started != null && token == started.fencingToken()) {
                if ("resume".equals(event.type())) {
                    truncateAfter(kept, JobEventData.resumeFrom(event.data(), json));
                    kept.removeIf(JobEvent::isTerminal); // a run that goes on after an ending (a retried job) undoes it
                } else {
                    kept.clear();
                    kept.add(started);
                }
                started = null;
            }
            kept.add(event);
        }
        if (started != null) {
            kept.add(started);
        }
        return kept;
    }

    private static void truncateAfter(List<JobEvent> kept, String resumeFrom) {
        if (resumeFrom == null) {
            return;
        }
        while (!kept.isEmpty() && StreamIds.compare(kept.get(kept.size() - 1).id(), resumeFrom) > 0) {
            kept.remove(kept.size() - 1);
        }
    }
}

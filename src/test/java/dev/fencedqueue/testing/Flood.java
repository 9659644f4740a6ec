package dev.fencedqueue.testing;

import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * A research-queue processor that appends {@code count} progress events as fast as the fence allows, up to
 * {@code inFlight} at a time (each carries {@code n}, its number, and {@code padding}), then completes.
 *
 * @param json builds the events' details
 * @param count how many progress events
 * @param padding a string added to each event (to make events large), may be empty
 * @param inFlight the appends in flight at a time; 1 awaits each before the next
 */
public record Flood(ObjectMapper json, int count, String padding, int inFlight) implements JobProcessor {

    @Override
    public String queue() {
        return "deep-research";
    }

    @Override
    public Uni<Object> process(JobContext context) {
        return Multi.createFrom().range(0, count)
                .onItem().transformToUni(i -> context.progress(i * 100 / count, null,
                        json.createObjectNode().put("n", i).put("padding", padding)))
                .merge(inFlight)
                .collect().last().replaceWith((Object) Map.of("events", count));
    }
}

package dev.fencedqueue.simulator;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.config.SimulatorConfig;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * The built-in research LLM simulator, a real HTTP endpoint of the service: it answers
 * {@code POST /simulator/research} with an SSE stream of {@code fq.simulator.research.steps} progress events, one
 * per {@code fq.simulator.research.step-interval} (document collection, analysis, web search, synthesis, report
 * writing), then a summary that mentions the query. Timers, not threads, pace it.
 */
@Path("/simulator")
@Tag(name = "simulator", description = "Built-in research LLM simulator")
public class ResearchSimulator {

    private static final List<String> PHASES = List.of("collecting documents", "analysing sources",
            "searching the web", "synthesizing findings", "writing the report");

    private final SimulatorConfig config;
    private final SimulatedPrompts prompts;
    private final SimulatorStats stats;

    public ResearchSimulator(SimulatorConfig config, SimulatorStats stats, ResearchConfig research) {
        this.prompts = SimulatedPrompts.of(research.deep());
        this.config = config;
        this.stats = stats;
    }

    /**
     * The body of a research call.
     *
     * @param query what to research
     * @param jobId the job id, for the stats
     */
    public record Request(@NotNull(message = "`query` must not be null") String query, String jobId) {
    }

    @POST
    @Path("/research")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    @Operation(summary = "Stream a simulated deep-research run as SSE")
    public Multi<Map<String, Object>> research(@Valid @NotNull Request request) {
        int steps = config.research().steps();
        Duration interval = config.research().stepInterval();
        return Multi.createFrom().deferred(() -> {
            stats.opened(request.jobId());
            Multi<Map<String, Object>> progress = Multi.createFrom().range(1, steps + 1)
                    .onItem().call(step -> Uni.createFrom().voidItem().onItem().delayIt().by(interval))
                    .map(step -> progress(step, steps));
            Multi<Map<String, Object>> summary = Multi.createFrom().item(() -> summary(request.query(), steps));
            return Multi.createBy().concatenating().streams(progress, summary)
                    .onCompletion().invoke(() -> stats.completed(request.jobId()))
                    .onCancellation().invoke(() -> stats.closedEarly(request.jobId()));
        });
    }

    @GET
    @Path("/stats")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Streams opened, completed and closed early by clients")
    @NonBlocking
    public SimulatorStats.Snapshot stats() {
        return stats.snapshot();
    }

    private static Map<String, Object> progress(int step, int steps) {
        int percent = (int) Math.round(step * 100.0 / (steps + 1));
        String phase = PHASES.get(Math.min(PHASES.size() - 1, (step - 1) * PHASES.size() / steps));
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("percent", percent);
        event.put("message", phase + " (step " + step + " of " + steps + ")");
        return event;
    }

    /** @return the summary event: the plan a plan prompt asks for, else a report that names the query */
    private Map<String, Object> summary(String query, int steps) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("status", "completed");
        event.put("summary", prompts.isPlan(query) ? prompts.plan(query) : "Research report on \""
                + prompts.subject(query) + "\": " + steps
                + " steps over collected documents, web sources and analysis, synthesized into one report.");
        return event;
    }
}

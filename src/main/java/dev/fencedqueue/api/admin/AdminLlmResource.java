package dev.fencedqueue.api.admin;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.fencedqueue.llm.budget.BudgetState;
import dev.fencedqueue.llm.budget.LlmBudgetGate;
import dev.fencedqueue.llm.budget.LlmBudgets;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The LLM budgets the fleet shares, under {@code /admin/llm/budgets}: one per endpoint and model that any instance
 * called, with its limits, what is left of them, the calls in flight, and whether the fleet waits for the server
 * (paused, or its circuit open) and until when.
 */
@Path("/admin/llm/budgets")
@RolesAllowed(AdminUserConfigSourceFactory.ROLE)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Operator API: queues, jobs and maintenance (HTTP Basic, role admin)")
public class AdminLlmResource {

    private final LlmBudgets budgets;
    private final LlmBudgetGate gate;

    public AdminLlmResource(LlmBudgets budgets, LlmBudgetGate gate) {
        this.budgets = budgets;
        this.gate = gate;
    }

    /**
     * One budget, read at one instant of the Redis clock ({@code readAt}); every time is ms since the epoch on that
     * clock.
     *
     * @param endpoint the LLM server's URL
     * @param model the model, empty when the server has one
     * @param requests the requests per minute in force ({@code limit}: the configured limit or the provider's, the
     *        smaller) and those it admits now ({@code left}); absent without a request limit
     * @param tokens the same for tokens (prompt and answer); absent without a token limit
     * @param concurrency the calls in flight fleet-wide ({@code inFlight}) and the most at once ({@code max}, absent for
     *        no limit)
     * @param pausedUntil until when the provider asked the fleet to wait; absent when not paused
     * @param circuit the fleet's circuit: {@code state} ({@code closed}, {@code open}: calls wait for the next probe at
     *        {@code nextProbeAt}, {@code probing}: a probe is under way), and {@code probeInterval} in ms while not
     *        closed
     * @param unavailableSince since when the server refused or failed every call; absent when available
     * @param readAt when this was read
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record BudgetView(String endpoint, String model, Limit requests, Limit tokens, Concurrency concurrency,
            Long pausedUntil, Circuit circuit, Long unavailableSince, long readAt) {

        static BudgetView of(BudgetState state) {
            return new BudgetView(state.key().endpoint(), state.key().model(),
                    state.requestLimit() > 0 ? new Limit(state.requestLimit(), state.requestsLeft()) : null,
                    state.tokenLimit() > 0 ? new Limit(state.tokenLimit(), state.tokensLeft()) : null,
                    new Concurrency(state.maxConcurrent() > 0 ? state.maxConcurrent() : null, state.inFlight()),
                    state.pausedUntil() > 0 ? state.pausedUntil() : null, Circuit.of(state),
                    state.unavailableSince() > 0 ? state.unavailableSince() : null, state.readAt());
        }
    }

    /**
     * @param limit per minute
     * @param left admitted now
     */
    public record Limit(long limit, long left) {
    }

    /**
     * @param max the most calls at once, {@code null} for no limit
     * @param inFlight the calls in flight
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Concurrency(Long max, long inFlight) {
    }

    /**
     * @param state {@code closed}, {@code open} or {@code probing}
     * @param nextProbeAt when {@code open}: when the next probe is due, ms since the epoch
     * @param probeInterval when not {@code closed}: the interval between probes, ms
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Circuit(String state, Long nextProbeAt, Long probeInterval) {

        static Circuit of(BudgetState state) {
            if (!state.circuitOpen()) {
                return new Circuit("closed", null, null);
            }
            return state.openUntil() > state.readAt()
                    ? new Circuit("open", state.openUntil(), state.probeInterval())
                    : new Circuit("probing", null, state.probeInterval());
        }
    }

    /** @return every budget the fleet's calls spent, by endpoint then model (with this instance's configured limits) */
    @GET
    @Operation(summary = "The fleet's LLM budgets: limits, what is left, calls in flight, pause and circuit")
    public Uni<List<BudgetView>> list() {
        return budgets.states(gate.limits()).map(BudgetView::of).collect().asList();
    }
}

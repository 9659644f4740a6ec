package dev.fencedqueue.simulator;

import java.time.Duration;
import java.util.Locale;

import dev.fencedqueue.config.SimulatorConfig.OutageKind;
import io.smallrye.common.annotation.NonBlocking;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The simulated provider's state and its outages, under {@code /simulator/provider}: its limits and what is left of
 * them, how many requests it admitted, rate-limited and failed, its limits set at run time, and an outage an operator
 * or a test starts and ends at run time ({@link SimulatedProvider}).
 */
@Path("/simulator/provider")
@Tag(name = "simulator", description = "Built-in research LLM simulator")
@Produces(MediaType.APPLICATION_JSON)
public class SimulatedProviderResource {

    private final SimulatedProvider provider;

    public SimulatedProviderResource(SimulatedProvider provider) {
        this.provider = provider;
    }

    /**
     * An outage to start.
     *
     * @param seconds how long it lasts, s (1 to 86,400)
     * @param kind how the OpenAI endpoints fail meanwhile: {@code unavailable} ({@code 503}, the default),
     *        {@code error} ({@code 500}) or {@code reset} (the connection closed without a response)
     */
    public record Outage(@NotNull(message = "`seconds` is required") @Positive(message = "`seconds` must be positive")
            @Max(value = 86_400, message = "`seconds` must be at most 86400") Long seconds,
            @Pattern(regexp = "unavailable|error|reset", message = "`kind` must be unavailable, error or reset")
            String kind) {
    }

    @GET
    @NonBlocking
    @Operation(summary = "The simulated provider's limits, what is left of them, its counters and its outage")
    public SimulatedProvider.State state() {
        return provider.state();
    }

    /**
     * The limits to set.
     *
     * @param requestsPerMinute requests per minute (1 to 1,000,000), absent for no limit
     * @param tokensPerMinute tokens per minute (1 to 1,000,000,000), absent for no limit
     */
    public record Limits(@Positive(message = "`requestsPerMinute` must be positive")
            @Max(value = 1_000_000, message = "`requestsPerMinute` must be at most 1000000") Long requestsPerMinute,
            @Positive(message = "`tokensPerMinute` must be positive")
            @Max(value = 1_000_000_000, message = "`tokensPerMinute` must be at most 1000000000") Long tokensPerMinute) {
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @NonBlocking
    @Operation(summary = "Sets the simulated provider's limits, full, replacing fq.simulator.provider.requests-per-minute and "
            + "tokens-per-minute", description = "Body: `{\"requestsPerMinute\", \"tokensPerMinute\"}`, each optional "
            + "(absent: no limit). 400 naming the field.")
    public SimulatedProvider.State limit(@Valid @NotNull(message = "the body must be the limits") Limits limits) {
        provider.limit(limits.requestsPerMinute(), limits.tokensPerMinute());
        return provider.state();
    }

    @PUT
    @Path("/outage")
    @Consumes(MediaType.APPLICATION_JSON)
    @NonBlocking
    @Operation(summary = "Starts an outage of the simulator's OpenAI endpoints, replacing any under way",
            description = "Body: `{\"seconds\", \"kind\": \"unavailable\" | \"error\" | \"reset\"}`. 400 naming the field.")
    public SimulatedProvider.State start(@Valid @NotNull(message = "the body must be an outage") Outage outage) {
        provider.start(Duration.ofSeconds(outage.seconds()), outage.kind() == null ? OutageKind.UNAVAILABLE
                : OutageKind.valueOf(outage.kind().toUpperCase(Locale.ROOT)));
        return provider.state();
    }

    @DELETE
    @Path("/outage")
    @NonBlocking
    @Operation(summary = "Ends the outage under way, if any")
    public SimulatedProvider.State end() {
        provider.end();
        return provider.state();
    }
}

package dev.fencedqueue.api.admin;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.fencedqueue.api.InvalidParameterException;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.tenancy.SlotTime;
import dev.fencedqueue.queue.TenantIds;
import dev.fencedqueue.tenancy.TenantSettings;
import dev.fencedqueue.tenancy.Tenants;
import dev.fencedqueue.tenancy.TokenQuota;
import dev.fencedqueue.llm.LlmPrices;
import dev.fencedqueue.tenancy.FairDispatchSync;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestPath;

/**
 * Tenants under {@code /admin/tenants}: what an operator set for each (a weight under fair dispatch, a token quota),
 * kept in Redis so that every instance obeys it at once, and what each one's research jobs spent this day and this
 * month.
 */
@Path("/admin/tenants")
@RolesAllowed(AdminUserConfigSourceFactory.ROLE)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Operator API: queues, jobs and maintenance (HTTP Basic, role admin)")
public class AdminTenantsResource {

    private final Tenants tenants;
    private final FairDispatchSync weights;
    private final QueueOverview overview;
    private final Queues queues;
    private final SlotTime slotTime;
    private final String researchQueue;
    private final LlmPrices prices;

    public AdminTenantsResource(Tenants tenants, FairDispatchSync weights, QueueOverview overview, Queues queues,
            SlotTime slotTime, ResearchConfig research, LlmPrices prices) {
        this.tenants = tenants;
        this.prices = prices;
        this.slotTime = slotTime;
        this.weights = weights;
        this.overview = overview;
        this.queues = queues;
        this.researchQueue = research.queue();
    }

    /**
     * One tenant: its settings and what its research jobs spent.
     *
     * @param tenant its id
     * @param weight its share of each queue under fair dispatch relative to the other tenants' (1 unless set)
     * @param concurrency the most of its jobs that run at once in each queue, fleet-wide; absent for no limit
     * @param rateLimit the most of its jobs that start per window in each queue ({@code max}, {@code duration} in ms);
     *        absent for no limit
     * @param tokenQuota the LLM tokens its jobs may spend per period ({@code tokens}, {@code period}: {@code day} or
     *        {@code month}, UTC), absent for no limit
     * @param tokens what its jobs of the research queue ({@code queue}) spent, prompt and completion of every attempt:
     *        {@code today} and {@code thisMonth}, UTC
     * @param cost what those tokens cost at the model's prices ({@code fq.llm.price.*}), counted while prices were set;
     *        absent when this instance has none
     * @param jobs its jobs in each queue this service serves, by queue name
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TenantView(String tenant, Number weight, Integer concurrency, JsonNode rateLimit, JsonNode tokenQuota,
            TokensSpent tokens, CostSpent cost, Map<String, QueueUse> jobs) {
    }

    /**
     * A tenant's jobs in one queue.
     *
     * @param ready its jobs waiting to run (waiting, prioritized, or held by a paused queue)
     * @param running its jobs running now
     * @param slotShare its share of the slot time the queue's jobs held in the last minute (60 to 70 s), fleet-wide, 0
     *        to 1 (3 decimals); absent when no job of the queue held a slot then
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record QueueUse(long ready, long running, Double slotShare) {
    }

    /**
     * @param queue the queue whose jobs' tokens these are
     * @param today tokens spent since midnight UTC
     * @param thisMonth tokens spent since the first of the month, UTC
     */
    public record TokensSpent(String queue, long today, long thisMonth) {
    }

    /**
     * @param queue the queue whose jobs' cost this is
     * @param today what its jobs' tokens spent since midnight UTC cost, in the prices' currency (6 decimals at most)
     * @param thisMonth what those spent since the first of the month, UTC, cost
     */
    public record CostSpent(String queue, double today, double thisMonth) {
    }

    @GET
    @Operation(summary = "Every tenant that has settings, with what its research jobs spent")
    public Uni<List<TenantView>> list() {
        return tenants.all().chain(all -> {
            List<Uni<TenantView>> views = new ArrayList<>();
            all.forEach((tenant, settings) -> views.add(view(tenant, settings)));
            return views.isEmpty() ? Uni.createFrom().item(List.<TenantView>of())
                    : Uni.join().all(views).andFailFast();
        });
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "One tenant's settings (none set: the defaults) and what its research jobs spent")
    public Uni<TenantView> get(@RestPath String id) {
        String tenant = checked(id);
        return tenants.settings(tenant).chain(settings -> view(tenant, settings));
    }

    @PUT
    @Path("/{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Sets a tenant's settings, for every instance at once", description = "Body: "
            + "`{\"weight\", \"concurrency\", \"rateLimit\", \"tokenQuota\": {\"tokens\", \"period\": \"day\" | \"month\"}}`. `weight` "
            + "(above 0, default 1): the tenant's share of each queue under fair dispatch relative to the others'. "
            + "`concurrency` (1 to 1000000, default none): the most of its jobs that run at once in each queue, "
            + "fleet-wide. `rateLimit` (`{\"max\", \"duration\"}`, duration in ms): the most of its jobs that start "
            + "per window in each queue. `tokenQuota` (UTC calendar "
            + "periods): once its research jobs spent that many LLM tokens (prompt and completion, every attempt) in the period, "
            + "`POST /research/start` for the tenant answers 429 with Retry-After until the period ends; its running "
            + "jobs finish. Replaces what was set; `{}` goes back to the defaults. 400 naming the field.")
    public Uni<TenantView> put(@RestPath String id, JsonNode body) {
        String tenant = checked(id);
        TenantSettings settings;
        try {
            settings = TenantSettings.read(body);
        } catch (IllegalArgumentException e) {
            throw InvalidParameterException.of(e);
        }
        return tenants.put(tenant, settings).call(weights::syncNow).chain(() -> view(tenant, settings));
    }

    @DELETE
    @Path("/{id}")
    @Operation(summary = "Puts a tenant back to the defaults (weight 1, no quota); what its jobs spent still counts")
    public Uni<Map<String, Object>> remove(@RestPath String id) {
        String tenant = checked(id);
        return tenants.remove(tenant).call(weights::syncNow).map(removed -> Map.of("tenant", tenant, "removed", removed));
    }

    private Uni<TenantView> view(String tenant, TenantSettings settings) {
        Instant now = Instant.now();
        Uni<Long> today = tenants.tokensUsed(researchQueue, tenant, TokenQuota.Period.DAY, now);
        Uni<Long> month = tenants.tokensUsed(researchQueue, tenant, TokenQuota.Period.MONTH, now);
        Uni<CostSpent> cost = prices.isSet() ? cost(tenant, now) : Uni.createFrom().nullItem();
        List<String> served = overview.servedQueues();
        Uni<List<QueueUse>> jobs = Uni.join().all(served.stream().map(queue -> use(queue, tenant, now)).toList())
                .andFailFast();
        return Uni.combine().all().unis(today, month, cost, jobs).asTuple().map(read -> {
            Map<String, QueueUse> byQueue = new LinkedHashMap<>();
            for (int i = 0; i < served.size(); i++) {
                byQueue.put(served.get(i), read.getItem4().get(i));
            }
            return new TenantView(tenant, shown(settings.effectiveWeight()), settings.concurrency(),
                    settings.rateLimit() == null ? null : settings.write().get("rateLimit"),
                    settings.tokenQuota() == null ? null : settings.write().get("tokenQuota"),
                    new TokensSpent(researchQueue, read.getItem1(), read.getItem2()), read.getItem3(), byQueue);
        });
    }

    private Uni<CostSpent> cost(String tenant, Instant now) {
        Uni<Long> today = tenants.costUsed(researchQueue, tenant, TokenQuota.Period.DAY, now);
        Uni<Long> month = tenants.costUsed(researchQueue, tenant, TokenQuota.Period.MONTH, now);
        return Uni.combine().all().unis(today, month).with((day, thisMonth) -> new CostSpent(researchQueue,
                LlmPrices.units(day), LlmPrices.units(thisMonth)));
    }

    private Uni<QueueUse> use(String queue, String tenant, Instant now) {
        Uni<JobQueue.TenantJobs> jobs = queues.queue(queue).getTenantJobs(tenant);
        Uni<Double> share = slotTime.share(queue, tenant, now.toEpochMilli());
        return Uni.combine().all().unis(jobs, share).with((counts, shared) -> new QueueUse(counts.ready(),
                counts.running(), shared == null ? null : Math.round(shared * 1000) / 1000.0));
    }

    /** @return a whole weight as a whole number ({@code 3}, not {@code 3.0}), any other as it is */
    private static Number shown(double weight) {
        return weight == Math.rint(weight) ? (Number) (long) weight : (Number) weight;
    }

    private static String checked(String id) {
        if (!TenantIds.isValid(id)) {
            throw new InvalidParameterException("id", "`id` must be a tenant id: " + TenantIds.RULE);
        }
        return id;
    }
}

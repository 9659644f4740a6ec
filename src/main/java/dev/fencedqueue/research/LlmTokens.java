package dev.fencedqueue.research;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import dev.fencedqueue.Failures;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.llm.LlmPrices;
import dev.fencedqueue.queue.OwnershipLostException;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.queue.TenantIds;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.tenancy.Tenants;
import dev.fencedqueue.tenancy.TokenQuota;
import dev.fencedqueue.worker.CancelReason;
import dev.fencedqueue.worker.JobCancelledException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Accounts for the LLM tokens each attempt spent (zombie LLM calls are cancelled because tokens cost money): into the
 * job's status ({@code tokens}, by outcome) and into Prometheus as {@code fq_llm_tokens_total} (tags {@code queue},
 * {@code kind} = {@code prompt} | {@code completion}, {@code outcome} = {@code result} | {@code failed} |
 * {@code zombie} | {@code aborted} | {@code handed-back}; and {@code saved}, committed completion tokens a takeover
 * continued instead of generating again, and {@code lost}, completion tokens an attempt generated after its last
 * commit), {@code fq_llm_attempts_total} ({@code queue}, {@code outcome}) and {@code fq_llm_takeovers_total}
 * ({@code queue}, {@code kind} = {@code reattach} | {@code continue} | {@code restart}). With the model's prices
 * ({@code fq.llm.price.*}, {@link LlmPrices}), what the tokens cost is counted at the same places: the job's status
 * ({@code cost}, by outcome, and {@code saved}), its tenant's cost this day and this month, and
 * {@code fq_llm_cost_total} ({@code tenant}, {@code outcome}, in the prices' currency). A zombie's tokens are counted
 * too: the count is not a fenced write.
 */
@ApplicationScoped
public class LlmTokens {

    private static final Logger LOG = Logger.getLogger(LlmTokens.class);

    /** How long a tenant's day and month token counters live after their last write: past their period, and then some. */
    private static final Duration DAY_COUNTERS_LIVE = Duration.ofDays(2);
    private static final Duration MONTH_COUNTERS_LIVE = Duration.ofDays(62);
    /** The outcomes an attempt's tokens are counted under. */
    private static final List<String> OUTCOMES = List.of("result", "failed", "zombie", "aborted", "handed-back");

    private final Queues queues;
    private final LuaScripts scripts;
    private final MeterRegistry registry;
    private final Tenants tenants;
    private final LlmPrices prices;

    public LlmTokens(Queues queues, LuaScripts scripts, MeterRegistry registry, Tenants tenants, LlmPrices prices) {
        this.queues = queues;
        this.scripts = scripts;
        this.registry = registry;
        this.tenants = tenants;
        this.prices = prices;
    }

    /**
     * Starts the research queue's counters at 0 for every outcome and kind, so that they exist before the first
     * attempt (a dashboard's {@code rate()} and an alert see them from the start, as Prometheus advises).
     */
    void initialize(@Observes StartupEvent event, ResearchConfig research) {
        String queue = research.queue();
        for (String outcome : OUTCOMES) {
            counter("fq.llm.tokens", queue, outcome, "prompt");
            counter("fq.llm.tokens", queue, outcome, "completion");
            attempts(queue, outcome);
        }
        counter("fq.llm.tokens", queue, "lost", "completion");
        counter("fq.llm.tokens", queue, "saved", "completion");
        for (Takeover takeover : Takeover.values()) {
            takeovers(queue, takeover);
        }
        tenantTokens(TenantIds.DEFAULT);
        tenantTokens(Tenants.OTHER);
        for (String tenant : List.of(TenantIds.DEFAULT, Tenants.OTHER)) {
            OUTCOMES.forEach(outcome -> cost(tenant, outcome));
            cost(tenant, "saved");
        }
    }

    /**
     * How an attempt ended, for the count.
     *
     * @param reason why the worker cancelled the attempt, when it did
     * @param failure what failed the attempt, or {@code null} when it produced the result
     * @return {@code result}, {@code failed}, {@code zombie}, {@code handed-back}, or {@code revoked} (recorded as
     *         {@code aborted} or {@code zombie} by the job's state)
     */
    static String outcome(Optional<CancelReason> reason, Throwable failure) {
        if (reason.isPresent()) {
            return switch (reason.get()) {
                case OWNERSHIP_LOST, LOCK_EXPIRED -> "zombie";
                case REVOKED -> "revoked";
                case SHUTDOWN -> "handed-back";
                case TIMEOUT -> "failed";
            };
        }
        if (failure == null) {
            return "result";
        }
        return failure instanceof OwnershipLostException || failure instanceof JobCancelledException ? "zombie" : "failed";
    }

    /**
     * What one attempt of an LLM call spent, and what a takeover saved.
     *
     * @param outcome as {@link #outcome} says
     * @param promptTokens prompt tokens, 0 when unknown
     * @param completionTokens completion tokens the attempt generated
     * @param lostTokens of {@code completionTokens}, those generated after the attempt's last committed event (lost
     *        work, since nothing was kept of them); 0 for an attempt that produced the result
     * @param savedTokens completion tokens earlier runs committed that this attempt continued instead of generating
     *        them again (0 when it started the answer)
     * @param takeover how the attempt went on after a takeover, {@code null} on the job's first run
     */
    public record Attempt(String outcome, long promptTokens, long completionTokens, long lostTokens, long savedTokens,
            Takeover takeover) {
    }

    /**
     * Counts one attempt's tokens: into the job hash's {@code tokens:<outcome>:attempts|prompt|completion|lost},
     * {@code tokens:saved:completion} and {@code tokens:takeovers:<kind>} ({@code addTokens.lua}), into what the
     * job's tenant spent in the queue this day and this month (UTC, by this instance's clock: its token quota,
     * {@link dev.fencedqueue.tenancy.Tenants}), and into
     * {@code fq_llm_tokens_total} (outcomes {@code saved} and {@code lost} beside the spending ones: {@code lost} is a
     * part of what the spending outcomes count, {@code saved} was not spent), {@code fq_tenant_tokens_total} (its
     * tenant's label, {@link Tenants#metricLabel}) and {@code fq_llm_takeovers_total}. With the model's prices, what
     * the tokens cost, in micro-units: into {@code cost:<outcome>} and {@code cost:saved} of the job hash, the tenant's
     * cost this day and this month, and {@code fq_llm_cost_total} (in currency units; not counted when the job is gone,
     * as {@code fq_tenant_tokens_total} is not, for want of its tenant).
     *
     * @param queue the job's queue
     * @param jobId the job
     * @param fencingToken the attempt's fencing token: its tokens settle what fair dispatch charged its tenant for
     *        it ({@code fairShare.lua})
     * @param attempt what the attempt spent
     * @return completes once counted; never fails (a failed count is logged: accounting must not fail a job)
     */
    public Uni<Void> record(String queue, String jobId, long fencingToken, Attempt attempt) {
        String outcome = attempt.outcome();
        // Without the script's answer (the job is gone, or Redis failed), a revoked run is counted as a zombie.
        String fallback = outcome.equals("revoked") ? "zombie" : outcome;
        Instant now = Instant.now();
        OptionalLong cost = prices.micros(attempt.promptTokens(), attempt.completionTokens());
        long savedCost = cost.isPresent() ? prices.micros(0, attempt.savedTokens()).orElse(0) : 0;
        String day = TokenQuota.Period.DAY.id(now);
        String month = TokenQuota.Period.MONTH.id(now);
        return scripts.run(new AddTokensArgs(queues.keys(queue), jobId, fencingToken, attempt, day, month,
                        DAY_COUNTERS_LIVE, MONTH_COUNTERS_LIVE, cost, savedCost))
                .map(reply -> reply.get(0).toString().isEmpty() ? new Recorded(fallback, null)
                        : new Recorded(reply.get(0).toString(), reply.get(1).toString()))
                .onFailure().recoverWithItem(failure -> {
                    LOG.warnf("job %s: its %s attempt's %d + %d tokens were not added to its status: %s", jobId,
                            outcome, attempt.promptTokens(), attempt.completionTokens(), Failures.describe(failure));
                    return new Recorded(fallback, null);
                })
                .invoke(recorded -> {
                    count(queue, recorded.outcome(), attempt);
                    if (recorded.tenant() != null) {
                        String tenant = tenants.metricLabel(recorded.tenant());
                        tenantTokens(tenant).increment(attempt.promptTokens() + attempt.completionTokens());
                        if (cost.isPresent()) {
                            cost(tenant, recorded.outcome()).increment(LlmPrices.units(cost.getAsLong()));
                        }
                        if (cost.isPresent() && attempt.savedTokens() > 0) {
                            cost(tenant, "saved").increment(LlmPrices.units(savedCost));
                        }
                    }
                })
                .replaceWithVoid();
    }

    /** How an attempt's tokens were recorded: under which outcome, for which tenant ({@code null} when unknown). */
    private record Recorded(String outcome, String tenant) {
    }

    private Counter tenantTokens(String tenantLabel) {
        return Counter.builder("fq.tenant.tokens").description("LLM tokens (prompt and completion) spent by the jobs "
                + "of a tenant that has settings, of the default tenant, or of the others (tenant=other)")
                .tag("tenant", tenantLabel).register(registry);
    }

    private Counter cost(String tenantLabel, String outcome) {
        return Counter.builder("fq.llm.cost").description("What LLM tokens cost at the model's prices "
                + "(fq.llm.price.*), in their currency, by tenant (those with settings, default, the others as other) "
                + "and by how the attempt that spent them ended; outcome=saved: what committed tokens a takeover did "
                + "not generate again would have cost").tag("tenant", tenantLabel).tag("outcome", outcome)
                .register(registry);
    }

    private void count(String queue, String outcome, Attempt attempt) {
        counter("fq.llm.tokens", queue, outcome, "prompt").increment(attempt.promptTokens());
        counter("fq.llm.tokens", queue, outcome, "completion").increment(attempt.completionTokens());
        if (attempt.lostTokens() > 0) {
            counter("fq.llm.tokens", queue, "lost", "completion").increment(attempt.lostTokens());
        }
        if (attempt.savedTokens() > 0) {
            counter("fq.llm.tokens", queue, "saved", "completion").increment(attempt.savedTokens());
        }
        attempts(queue, outcome).increment();
        if (attempt.takeover() != null) {
            takeovers(queue, attempt.takeover()).increment();
        }
    }

    private Counter attempts(String queue, String outcome) {
        return Counter.builder("fq.llm.attempts").description("LLM attempts, by how they ended").tag("queue", queue)
                .tag("outcome", outcome).register(registry);
    }

    private Counter takeovers(String queue, Takeover takeover) {
        return Counter.builder("fq.llm.takeovers").description("Runs that took a job over, by how they went on")
                .tag("queue", queue).tag("kind", takeover.value()).register(registry);
    }

    private Counter counter(String name, String queue, String outcome, String kind) {
        return Counter.builder(name).description("LLM tokens spent, by how the attempt that spent them ended; "
                + "outcome=saved: committed tokens a takeover did not generate again, outcome=lost: spent tokens "
                + "generated after an attempt's last commit")
                .baseUnit("tokens").tag("queue", queue).tag("outcome", outcome).tag("kind", kind).register(registry);
    }
}

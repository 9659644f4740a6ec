package dev.fencedqueue.llm.budget;

import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.Failures;
import dev.fencedqueue.llm.LlmConfig;
import dev.fencedqueue.llm.CallGate;
import dev.fencedqueue.llm.LlmExchange;
import dev.fencedqueue.llm.LlmException;
import dev.fencedqueue.llm.LlmUnavailableException;
import dev.fencedqueue.llm.LlmWaitException;
import dev.fencedqueue.llm.budget.LlmBudget.Outage;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.core.http.HttpClosedException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * Keeps the fleet's LLM calls within what the server admits, together ({@link LlmBudget}, one budget per endpoint and
 * model, kept in Redis), around each streamed call that generates (the research protocol's, chat completions', a
 * Responses create). A call that cannot go on yet fails with {@link LlmWaitException}, which fails its job's attempt as
 * the worker's rate limit: the job goes back to the front of its wait list without counting an attempt, and the
 * queue's dispatch is held as long as the call must wait (one hold per queue, for the whole fleet), so that the budget
 * is spent in the order the queue, fair dispatch included, chooses. Before the call:
 * <ul>
 * <li>the call reserves a request, its tokens (its prompt's, about a token per 4 characters of the request, and the
 * request's {@code max_tokens}, else {@code fq.llm.request.max-tokens}, else {@code fq.llm.budget.answer-tokens}) and a place
 * among the calls at once ({@code fq.llm.budget.*}; without limits, nothing);</li>
 * <li>it waits while the server asked the fleet to wait, or while the fleet's circuit is open (one call probes the
 * server when the circuit's interval comes).</li>
 * </ul>
 * Once the response's headers arrive, the provider's rate-limit headers correct the budget, and a success closes the
 * fleet's circuit; while its body streams, its lease is renewed every third of {@code fq.llm.budget.lease}; once its
 * body ends, the call leaves the calls at once and what the provider counted replaces what it reserved: the prompt's
 * tokens the server reported and the request's {@code max_tokens}, which the provider counted when it admitted the call
 * and does not give back however short the answer ({@link CallTokens}; without a {@code max_tokens}, the answer's
 * tokens reported; a server that reports none leaves the reservation spent); a call that failed before its headers
 * gives them all back. When the call fails before its headers:
 * <ul>
 * <li>a {@code 429}, or a {@code 503} with a time to wait ({@link LlmBusyException}), pauses the whole fleet's calls
 * for that long, and the job waits as long;</li>
 * <li>a server found down after the connector's own retries (refused or reset connections, no headers within
 * {@code fq.llm.http.open-timeout}, {@code 5xx}) opens the fleet's circuit
 * ({@code fq.llm.outage.*}), and the job waits for its next probe.</li>
 * </ul>
 * Once the server has refused or failed every call for {@code fq.llm.outage.timeout} since its last success,
 * attempts fail as their calls do (the queue's retries and back-off then apply). When Redis cannot be reached the
 * call goes on without the budget and fails as it does.
 */
@ApplicationScoped
@Startup // its metrics exist from the start, at 0
public class LlmBudgetGate implements CallGate {

    private static final Logger LOG = Logger.getLogger(LlmBudgetGate.class);
    /**
     * What finds the server down, after the connector's retries (as the connector's own retry sees it), but a
     * {@code 429} without a time to wait, which refuses that call only.
     */
    private static final List<Class<? extends Throwable>> DOWN = List.of(ConnectException.class,
            HttpClosedException.class, TimeoutException.class, LlmUnavailableException.class);

    private final LlmBudget budget;
    private final LlmBudgets registry;
    private final BudgetLimits limits;
    private final Duration lease;
    private final long answerTokens;
    private final String model;
    private final Duration unavailableTimeout;
    private final LlmConfig.Outage circuit;
    private final Set<BudgetKey> seen = ConcurrentHashMap.newKeySet();
    private final LlmBudgetMetrics metrics;
    private final ObjectMapper json;

    @Inject
    public LlmBudgetGate(LlmBudget budget, LlmBudgets budgets, LlmConfig config, MeterRegistry registry,
            ObjectMapper json) {
        LlmConfig.Budget settings = config.budget();
        this.budget = budget;
        this.registry = budgets;
        this.metrics = new LlmBudgetMetrics(registry);
        this.limits = new BudgetLimits(settings.requestsPerMinute().orElse(0), settings.tokensPerMinute().orElse(0),
                settings.maxConcurrent().orElse(0));
        this.lease = settings.lease();
        this.answerTokens = config.request().maxTokens().orElse(settings.answerTokens());
        this.model = config.model().orElse("");
        this.unavailableTimeout = config.outage().timeout();
        this.circuit = config.outage();
        this.json = json;
    }

    /** @return the limits configured on this instance ({@code fq.llm.budget.*}), {@link BudgetLimits#NONE} for none */
    public BudgetLimits limits() {
        return limits;
    }

    /** @return the budgets this instance's calls spent since it started, one per endpoint and model */
    public Set<BudgetKey> budgets() {
        return Set.copyOf(seen);
    }

    /**
     * @param url the call's URL (its query is not part of the budget's endpoint)
     * @param body the request body, JSON text
     * @param jobId the job the call is for (its {@code X-Request-ID}), which keeps its place in the budget's line once
     *        the budget held its call back; {@code null} for none
     * @param call opens the call (the connector's guarded opening)
     * @return the open exchange, as {@code call} gives it; fails with {@link LlmWaitException} when the call cannot
     *         go on yet (the class says when), else as {@code call} does
     */
    @Override
    public Uni<LlmExchange> around(URI url, String body, String jobId, Supplier<Uni<LlmExchange>> call) {
        BudgetKey key = key(url);
        if (seen.add(key)) {
            registry.register(key).subscribe().with(ignored -> {
            }, failure -> seen.remove(key)); // registered with a later call
        }
        String leaseId = UUID.randomUUID().toString();
        CallTokens tokens = CallTokens.of(body, json, answerTokens);
        return budget.reserve(key, limits, tokens.reserved(), leaseId, lease, unavailableTimeout, jobId)
                .onFailure().recoverWithItem(failure -> {
                    LOG.debugf("the LLM budget could not be read, the call goes on without it: %s",
                            Failures.describe(failure));
                    return null;
                })
                .chain(reservation -> {
                    if (reservation == null) {
                        return call.get();
                    }
                    if (!reservation.reserved()) {
                        return Uni.createFrom().failure(held(key, reservation));
                    }
                    metrics.left(reservation.requestsLeft(), reservation.tokensLeft());
                    return spending(key, leaseId, tokens, reservation.unwell(), call.get());
                });
    }

    private Uni<LlmExchange> spending(BudgetKey key, String leaseId, CallTokens tokens, boolean unwell,
            Uni<LlmExchange> call) {
        return call
                .invoke(exchange -> {
                    correct(key, ProviderLimits.from(exchange.response()::getHeader));
                    if (unwell) {
                        close(key);
                    }
                    Cancellable renewing = renewing(key, leaseId);
                    exchange.response().end().onComplete(ended -> {
                        renewing.cancel();
                        settle(key, leaseId, tokens.charged(exchange.usage().get(), exchange.answerUsage().get()));
                    });
                })
                .onFailure().recoverWithUni(failure -> {
                    settle(key, leaseId, 0);
                    return failed(key, leaseId, failure);
                })
                .onCancellation().invoke(() -> settle(key, leaseId, 0));
    }

    /**
     * Tells the refusal of one try of a call apart, before the connector would retry it: while the fleet's budget is
     * kept, a {@code 429} or a {@code 503} with a time to wait becomes an {@link LlmBusyException}, which the connector
     * does not retry, as the whole fleet waits for the server instead. Any other refusal (a {@code 429} without a time
     * to wait, such as OpenAI's "Request too large", is this call's alone) stays as it is.
     *
     * @param refusal the server's answer
     * @param headers its headers, which say what the provider's limits are
     * @return the failure the try fails with
     */
    @Override
    public LlmException refused(LlmUnavailableException refusal, Function<String, String> headers) {
        ProviderLimits provider = ProviderLimits.from(headers);
        Optional<Duration> wait = refusal.retryAfter().or(provider::retryAfter);
        if (wait.isEmpty() || refusal.status() != 429 && refusal.status() != 503) {
            return refusal;
        }
        return new LlmBusyException(refusal, wait.get(), provider);
    }

    private Uni<LlmExchange> failed(BudgetKey key, String leaseId, Throwable failure) {
        if (failure instanceof LlmBusyException busy) {
            correct(key, busy.provider());
            return budget.pause(key, busy.waitTime().plusMillis(jitter(busy.waitTime().toMillis())))
                    .onFailure().recoverWithNull()
                    .chain(outage -> waitOrFail(key, outage, busy.refusal(), "server"));
        }
        if (DOWN.stream().anyMatch(type -> type.isInstance(failure))
                && !(failure instanceof LlmUnavailableException refusal && refusal.status() == 429)) {
            return budget.open(key, leaseId, circuit.probeDelay(), circuit.probeMaxDelay())
                    .onFailure().recoverWithNull()
                    .chain(outage -> waitOrFail(key, outage, failure, "down"));
        }
        return Uni.createFrom().failure(failure);
    }

    private Uni<LlmExchange> waitOrFail(BudgetKey key, Outage outage, Throwable failure, String reason) {
        if (outage == null || outage.unavailableMillis() >= unavailableTimeout.toMillis()) {
            return Uni.createFrom().failure(failure);
        }
        long wait = outage.waitMillis();
        metrics.refused(reason, Duration.ofMillis(wait));
        LOG.infof("the LLM server at %s %s: the fleet waits for it; the job waits %d ms (%s)", key.endpoint(),
                reason.equals("server") ? "asked to wait" : "is down", wait, Failures.describe(failure));
        return Uni.createFrom().failure(new LlmWaitException(Duration.ofMillis(wait), "the LLM server at "
                + key.endpoint() + (reason.equals("server") ? " asked to wait" : " is down") + ", so the fleet waits "
                + "for it (" + Failures.describe(failure) + "); the job waits " + wait + " ms"));
    }

    private BudgetKey key(URI url) {
        return new BudgetKey(url.getScheme() + "://" + url.getRawAuthority() + url.getRawPath(), model);
    }

    private Throwable held(BudgetKey key, Reservation reservation) {
        String of = key.model().isEmpty() ? key.endpoint() : key.model() + " at " + key.endpoint();
        if (reservation.reason().equals("unavailable")) {
            return new LlmException("the LLM server for " + of + " has refused or failed every call for longer than "
                    + "fq.llm.outage.timeout (" + unavailableTimeout + "), and its circuit is open: the attempt "
                    + "fails");
        }
        long wait = reservation.waitMillis();
        String what = switch (reservation.reason()) {
            case "paused" -> "paused, as the LLM server asked";
            case "open" -> "waiting for the LLM server, found down (its circuit is open until the next probe)";
            case "concurrency" -> "at its most calls at once (fq.llm.budget.max-concurrent)";
            case "requests" -> "out of requests this minute (fq.llm.budget.requests-per-minute, or the server's limit)";
            case "line" -> "keeping its next calls for the jobs it held back first";
            default -> "out of tokens this minute (fq.llm.budget.tokens-per-minute, or the server's limit)";
        };
        metrics.refused(reservation.reason(), Duration.ofMillis(wait));
        return new LlmWaitException(Duration.ofMillis(wait), "the LLM budget of " + of + " is " + what
                + "; the job waits " + wait + " ms");
    }

    /** @return up to a tenth of {@code wait} more, at most a second, ms */
    private static long jitter(long wait) {
        return ThreadLocalRandom.current().nextLong(Math.min(Math.max(wait, 0) / 10, 1000) + 1);
    }

    private void correct(BudgetKey key, ProviderLimits provider) {
        if (provider.saysAnything()) {
            budget.correct(key, limits, provider).subscribe().with(left -> metrics.left(left[0], left[1]),
                    failure -> LOG.debugf("the LLM budget was not corrected: %s", Failures.describe(failure)));
        }
    }

    /**
     * Renews a call's lease every third of {@code fq.llm.budget.lease} while it streams, so that a call of any length
     * keeps its place and an instance that died lets its places go within a lease; stops at the first renewal that
     * finds the lease gone.
     */
    private Cancellable renewing(BudgetKey key, String leaseId) {
        return Multi.createFrom().ticks().every(lease.dividedBy(3))
                .onItem().transformToUniAndConcatenate(tick -> budget.renew(key, leaseId, lease)
                        .onFailure().recoverWithItem(failure -> {
                            LOG.debugf("an LLM call's lease was not renewed: %s", Failures.describe(failure));
                            return true; // Redis unreachable: the next tick tries again
                        }))
                .select().where(renewed -> !renewed).toUni()
                .subscribe().with(gone -> LOG.debugf("the lease of an LLM call in flight at %s ran out before it "
                        + "ended: its place was let go", key.endpoint()));
    }

    private void settle(BudgetKey key, String leaseId, long tokensUsed) {
        budget.settle(key, limits, leaseId, tokensUsed).subscribe().with(ignored -> {
        }, failure -> LOG.debugf("an LLM call's budget was not settled; its lease runs out: %s",
                Failures.describe(failure)));
    }

    private void close(BudgetKey key) {
        budget.close(key).subscribe().with(closed -> {
            if (closed) {
                LOG.infof("the LLM server at %s answered again: the fleet's calls to it start again", key.endpoint());
            }
        }, failure -> LOG.debugf("the fleet's LLM circuit was not closed: %s", Failures.describe(failure)));
    }
}

package dev.fencedqueue.research;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.fencedqueue.Failures;
import dev.fencedqueue.budget.BudgetKey;
import dev.fencedqueue.budget.BudgetLimits;
import dev.fencedqueue.budget.LlmBudget;
import dev.fencedqueue.budget.ProviderLimits;
import dev.fencedqueue.budget.Reservation;
import dev.fencedqueue.config.LlmConfig;
import dev.fencedqueue.worker.RateLimitedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * Spends the LLM budget the fleet shares ({@code fq.llm.budget.*}, {@link LlmBudget}) around each streamed call that
 * generates (the research protocol's, chat completions', a Responses create): the call reserves a request, its tokens
 * (its prompt's, about a token per 4 characters of the request, and {@code fq.llm.max-tokens}, else
 * {@code fq.llm.budget.answer-tokens}) and a place among the calls at once before it opens; a call the budget cannot
 * admit yet fails with {@link RateLimitedException}, so that its job waits in the queue without its worker slot
 * (with up to a tenth more, at most a second, of jitter, so that waiting jobs do not all come back at once). Once the
 * response's headers arrive, the provider's rate-limit headers correct the budget; once its body ends, the call leaves
 * the calls at once and the tokens the server reported it used replace those it reserved (a server that reports none
 * leaves the reservation spent); a call that failed before its headers gives them all back. A {@code 429}, or a {@code 503} with a time to wait, pauses the whole fleet's calls for that long; the
 * attempt itself fails as before (the connector retried it). Without any limit set nothing of this happens. When
 * Redis cannot be reached the call goes on without the budget.
 */
@ApplicationScoped
public class LlmBudgetGate {

    /** A gate that never reserves: for connectors made outside CDI. */
    static final LlmBudgetGate NONE = new LlmBudgetGate();

    private static final Logger LOG = Logger.getLogger(LlmBudgetGate.class);

    private final LlmBudget budget;
    private final BudgetLimits limits;
    private final Duration lease;
    private final long answerTokens;
    private final String model;
    private final Set<BudgetKey> seen = ConcurrentHashMap.newKeySet();
    private final Metrics metrics;

    @Inject
    public LlmBudgetGate(LlmBudget budget, LlmConfig config, MeterRegistry registry) {
        LlmConfig.Budget settings = config.budget();
        this.budget = budget;
        this.metrics = new Metrics(registry);
        this.limits = new BudgetLimits(settings.requestsPerMinute().orElse(0), settings.tokensPerMinute().orElse(0),
                settings.maxConcurrent().orElse(0));
        this.lease = settings.lease();
        this.answerTokens = config.maxTokens().orElse(settings.answerTokens());
        this.model = config.model().orElse("");
    }

    LlmBudgetGate() {
        this.metrics = null;
        this.budget = null;
        this.limits = BudgetLimits.NONE;
        this.lease = Duration.ZERO;
        this.answerTokens = 0;
        this.model = "";
    }

    /** @return whether a limit is set: calls spend the budget */
    public boolean isActive() {
        return !limits.equals(BudgetLimits.NONE);
    }

    /** @return the budgets this instance's calls spent since it started, one per endpoint and model */
    public Set<BudgetKey> budgets() {
        return Set.copyOf(seen);
    }

    /**
     * @param url the call's URL (its query is not part of the budget's endpoint)
     * @param body the request body, JSON text
     * @param call opens the call (the connector's guarded opening)
     * @return the open exchange, as {@code call} gives it; fails with {@link RateLimitedException} when the budget
     *         cannot admit the call yet, else as {@code call} does
     */
    Uni<LlmExchange> around(URI url, String body, Supplier<Uni<LlmExchange>> call) {
        if (!isActive()) {
            return call.get();
        }
        BudgetKey key = key(url);
        seen.add(key);
        String leaseId = UUID.randomUUID().toString();
        long tokens = (body == null ? 0 : body.length() / 4) + answerTokens;
        return budget.reserve(key, limits, tokens, leaseId, lease)
                .onFailure().recoverWithItem(failure -> {
                    LOG.debugf("the LLM budget could not be read, the call goes on without it: %s",
                            Failures.describe(failure));
                    return null;
                })
                .chain(reservation -> {
                    if (reservation != null && !reservation.reserved()) {
                        RateLimitedException refused = refused(key, reservation);
                        metrics.refused(reservation.reason(), refused.delay());
                        return Uni.createFrom().failure(refused);
                    }
                    if (reservation != null) {
                        metrics.left(reservation.requestsLeft(), reservation.tokensLeft());
                    }
                    return reservation == null ? call.get() : spending(key, leaseId, call.get());
                });
    }

    private Uni<LlmExchange> spending(BudgetKey key, String leaseId, Uni<LlmExchange> call) {
        return call
                .invoke(exchange -> {
                    correct(key, ProviderLimits.from(exchange.response()::getHeader));
                    exchange.response().end().onComplete(ended -> settle(key, leaseId, exchange.usage().get()));
                })
                .onFailure().invoke(failure -> settle(key, leaseId, 0))
                .onCancellation().invoke(() -> settle(key, leaseId, 0));
    }

    /**
     * Tells the budget that one try of a call was refused, before the connector retries it: a {@code 429}, or a
     * {@code 503} with a time to wait, pauses the whole fleet's calls for that long (with up to a tenth more, at most a
     * second, of jitter), and the refusal's rate-limit headers correct the budget. Nothing without a limit set.
     *
     * @param url the call's URL
     * @param refusal the server's answer
     * @param provider what its headers said of its limits
     */
    void refused(URI url, LlmUnavailableException refusal, ProviderLimits provider) {
        if (!isActive()) {
            return;
        }
        BudgetKey key = key(url);
        correct(key, provider);
        Optional<Duration> wait = refusal.retryAfter().or(provider::retryAfter);
        if ((refusal.status() == 429 || refusal.status() == 503) && wait.isPresent()) {
            metrics.refusedByServer();
            pause(key, wait.get());
        }
    }

    private BudgetKey key(URI url) {
        return new BudgetKey(url.getScheme() + "://" + url.getRawAuthority() + url.getRawPath(), model);
    }

    private RateLimitedException refused(BudgetKey key, Reservation reservation) {
        long wait = reservation.waitMillis();
        long jitter = ThreadLocalRandom.current().nextLong(Math.min(wait / 10, 1000) + 1);
        String what = switch (reservation.reason()) {
            case "paused" -> "paused, as the LLM server asked";
            case "concurrency" -> "at its most calls at once (fq.llm.budget.max-concurrent)";
            case "requests" -> "out of requests this minute (fq.llm.budget.requests-per-minute, or the server's limit)";
            default -> "out of tokens this minute (fq.llm.budget.tokens-per-minute, or the server's limit)";
        };
        return new RateLimitedException(Duration.ofMillis(wait + jitter), "the LLM budget of "
                + (key.model().isEmpty() ? key.endpoint() : key.model() + " at " + key.endpoint()) + " is " + what
                + "; the job waits " + (wait + jitter) + " ms");
    }

    private void correct(BudgetKey key, ProviderLimits provider) {
        if (provider.saysAnything()) {
            budget.correct(key, limits, provider).subscribe().with(left -> metrics.left(left[0], left[1]), failure -> LOG.debugf("the LLM budget was not corrected: %s", Failures.describe(failure)));
        }
    }

    private void settle(BudgetKey key, String leaseId, long tokensUsed) {
        budget.settle(key, limits, leaseId, tokensUsed).subscribe().with(ignored -> {
        }, failure -> LOG.debugf("an LLM call's budget was not settled; its lease runs out: %s",
                Failures.describe(failure)));
    }

    private void pause(BudgetKey key, Duration wait) {
        long jitter = ThreadLocalRandom.current().nextLong(Math.min(wait.toMillis() / 10, 1000) + 1);
        budget.pause(key, wait.plusMillis(jitter)).subscribe().with(
                until -> LOG.infof("the LLM server at %s asked to wait %d ms: the fleet's calls to it wait too",
                        key.endpoint(), wait.toMillis()),
                failure -> LOG.debugf("the fleet's LLM calls were not paused: %s", Failures.describe(failure)));
    }

    /**
     * The budget's metrics: {@code fq_llm_rate_limited_total{reason}} (calls the budget held back: {@code paused},
     * {@code concurrency}, {@code requests}, {@code tokens}; and {@code server}: a {@code 429} or {@code 503} with a
     * time to wait, which paused the fleet), {@code fq_llm_budget_wait_seconds} (how long held-back jobs were sent to
     * wait) and {@code fq_llm_budget_remaining{kind}} (requests and tokens the budget admitted after the last
     * reservation or correction this instance made; absent without that limit).
     */
    private static final class Metrics {

        private final MeterRegistry registry;
        private final Map<String, Counter> refusals = new ConcurrentHashMap<>();
        private final Timer waits;
        private final AtomicLong requestsLeft = new AtomicLong(-1);
        private final AtomicLong tokensLeft = new AtomicLong(-1);

        Metrics(MeterRegistry registry) {
            this.registry = registry;
            this.waits = Timer.builder("fq.llm.budget.wait").publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofHours(1))
                    .description("How long jobs whose LLM call the fleet's budget held back were sent to wait")
                    .register(registry);
            gauge("requests", requestsLeft);
            gauge("tokens", tokensLeft);
            // Every reason from the start, at 0: a rate of a counter that appears later misses its first increase.
            for (String reason : java.util.List.of("paused", "concurrency", "requests", "tokens", "server")) {
                counter(reason);
            }
        }

        private void gauge(String kind, AtomicLong left) {
            Gauge.builder("fq.llm.budget.remaining", left, value -> value.get() < 0 ? Double.NaN : value.get())
                    .tag("kind", kind).description("What the fleet's LLM budget admitted after the last reservation or "
                            + "correction this instance made")
                    .register(registry);
        }

        void refused(String reason, Duration wait) {
            counter(reason).increment();
            waits.record(wait);
        }

        void refusedByServer() {
            counter("server").increment();
        }

        void left(long requests, long tokens) {
            requestsLeft.set(requests);
            tokensLeft.set(tokens);
        }

        private Counter counter(String reason) {
            return refusals.computeIfAbsent(reason, name -> Counter.builder("fq.llm.rate.limited").tag("reason", name)
                    .description("LLM calls held back: by the fleet's budget (paused, concurrency, requests, tokens), "
                            + "or refused by the server with a time to wait (server)")
                    .register(registry));
        }
    }
}

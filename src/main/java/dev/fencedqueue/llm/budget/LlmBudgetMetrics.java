package dev.fencedqueue.llm.budget;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The metrics of the fleet's LLM budget ({@link LlmBudgetGate}): {@code fq_llm_rate_limited_total{reason}} (calls whose
 * job was sent to wait: held back before they started by the budget, {@code paused} (the provider said wait),
 * {@code open} (the fleet's circuit is open), {@code concurrency}, {@code requests}, {@code tokens}, {@code line} (jobs
 * held back before it wait in line for the next calls); or after the server
 * refused them, {@code server} (a {@code 429}, or a {@code 503} with a time to wait, which paused the fleet), or found
 * it down, {@code down} (which opened the fleet's circuit)), {@code fq_llm_budget_wait_seconds} (how long those jobs
 * were sent to wait) and {@code fq_llm_budget_remaining{kind}} (requests and tokens the budget admitted after the last
 * reservation or correction this instance made; absent without that limit).
 */
final class LlmBudgetMetrics {

    /** Every reason a call's job is sent to wait for. */
    static final List<String> REASONS = List.of("paused", "open", "concurrency", "requests", "tokens", "line", "server",
            "down");

    private final MeterRegistry registry;
    private final Map<String, Counter> refusals = new ConcurrentHashMap<>();
    private final Timer waits;
    private final AtomicLong requestsLeft = new AtomicLong(-1);
    private final AtomicLong tokensLeft = new AtomicLong(-1);

    LlmBudgetMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.waits = Timer.builder("fq.llm.budget.wait").publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofHours(1))
                .description("How long jobs whose LLM call was held back, refused or found the server down were sent "
                        + "to wait")
                .register(registry);
        gauge("requests", requestsLeft);
        gauge("tokens", tokensLeft);
        // Every reason from the start, at 0: a rate of a counter that appears later misses its first increase.
        for (String reason : REASONS) {
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

    void left(long requests, long tokens) {
        requestsLeft.set(requests);
        tokensLeft.set(tokens);
    }

    private Counter counter(String reason) {
        return refusals.computeIfAbsent(reason, name -> Counter.builder("fq.llm.rate.limited").tag("reason", name)
                .description("LLM calls whose job was sent to wait: held back by the fleet's budget (paused, open, "
                        + "concurrency, requests, tokens), refused by the server with a time to wait (server), or "
                        + "finding it down (down)")
                .register(registry));
    }
}

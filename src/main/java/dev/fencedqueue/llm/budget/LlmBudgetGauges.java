package dev.fencedqueue.llm.budget;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.fencedqueue.Failures;
import dev.fencedqueue.config.MetricsConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.quarkus.runtime.Startup;
import io.vertx.core.Vertx;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * The gauges of every LLM budget the fleet knows ({@link LlmBudgets}), read from Redis (the same for every instance)
 * every {@code fq.metrics.queue-refresh}, so that a scrape never waits for Redis: {@code fq_llm_unavailable_seconds
 * {endpoint, model}} (how long the server has refused or failed every call since its last success; 0 when available)
 * and {@code fq_llm_circuit_open{endpoint, model}} (1 while the fleet's circuit is open, else 0). A budget's gauges
 * appear at its first read.
 */
@ApplicationScoped
@Startup
public class LlmBudgetGauges {

    private static final Logger LOG = Logger.getLogger(LlmBudgetGauges.class);

    private final LlmBudgets budgets;
    private final LlmBudgetGate gate;
    private final MeterRegistry registry;
    private final Vertx vertx;
    private final Map<BudgetKey, BudgetState[]> last = new ConcurrentHashMap<>();
    private final AtomicBoolean reading = new AtomicBoolean();
    private final long timer;

    public LlmBudgetGauges(LlmBudgets budgets, LlmBudgetGate gate, MeterRegistry registry, Vertx vertx,
            MetricsConfig config) {
        this.budgets = budgets;
        this.gate = gate;
        this.registry = registry;
        this.vertx = vertx;
        this.timer = vertx.setPeriodic(Math.max(1, config.queueRefresh().toMillis()), id -> refresh());
    }

    private void refresh() {
        if (!reading.compareAndSet(false, true)) {
            return; // the last read is still under way
        }
        budgets.states(gate.limits()).subscribe().with(this::publish, failure -> {
                    reading.set(false);
                    LOG.debugf("the LLM budgets' gauges were not read: %s", Failures.describe(failure));
                }, () -> reading.set(false));
    }

    private void publish(BudgetState state) {
        last.computeIfAbsent(state.key(), this::register)[0] = state;
    }

    private BudgetState[] register(BudgetKey key) {
        BudgetState[] holder = new BudgetState[1];
        Tags tags = Tags.of("endpoint", key.endpoint(), "model", key.model());
        Gauge.builder("fq.llm.unavailable", holder, h -> h[0] == null ? Double.NaN : h[0].unavailableFor() / 1000.0)
                .tags(tags).baseUnit("seconds")
                .description("How long the LLM server has refused or failed every call since its last success, "
                        + "fleet-wide; 0 when available")
                .register(registry);
        Gauge.builder("fq.llm.circuit.open", holder, h -> h[0] == null ? Double.NaN : h[0].circuitOpen() ? 1 : 0)
                .tags(tags).description("1 while the fleet's circuit of the LLM server is open, else 0")
                .register(registry);
        return holder;
    }

    @PreDestroy
    void stop() {
        vertx.cancelTimer(timer);
    }
}

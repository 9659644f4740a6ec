package dev.fencedqueue.llm.budget;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The LLM budget the fleet shares, in Redis ({@link LlmBudget}): requests and tokens per minute as GCRA cells with a
 * minute's burst, calls at once as leases that run out when their instance dies, a settle that gives back what a call
 * was not counted (unless the provider's headers replaced its reservation since), the provider's headers bringing a
 * budget set too high down to its own, and a fleet-wide pause that only grows. Every call is checked on one real Redis, as two instances would see it.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class LlmBudgetTest {

    private static final Duration LEASE = Duration.ofMinutes(5);
    /** How long the fleet waits for a server that is down, in these tests. */
    private static final Duration UNAVAILABLE = Duration.ofMinutes(15);

    @Inject
    LlmBudget budget;

    @Inject
    LlmBudgets budgets;

    private final BudgetKey key = new BudgetKey("http://llm-" + UUID.randomUUID() + ".test/v1", "model-a");

    @Test
    void admitsAMinutesRequestsAtOnceThenOneEveryIntervalOfTheMinute() {
        BudgetLimits limits = new BudgetLimits(3, 0, 0);
        for (int i = 0; i < 3; i++) {
            Reservation granted = reserve(limits, 10);
            assertThat(granted.reserved()).isTrue();
            assertThat(granted.requestsLeft()).isEqualTo(2 - i);
            assertThat(granted.tokensLeft()).as("no token limit").isEqualTo(-1);
        }
        Reservation refused = reserve(limits, 10);
        assertThat(refused.reserved()).isFalse();
        assertThat(refused.reason()).isEqualTo("requests");
        // Time passing only shortens the wait: asserted as a bound, whatever the machine's pace.
        assertThat(refused.waitMillis()).as("until the next request of one every 20 s").isPositive()
                .isLessThanOrEqualTo(20_000L);
    }

    @Test
    void aCallThatUsedFewerTokensThanItReservedGivesTheRestBack() {
        BudgetLimits limits = new BudgetLimits(0, 1_000, 0);
        assertThat(reserve(limits, 600, "first").tokensLeft()).isEqualTo(400);
        Reservation refused = reserve(limits, 500, "second");
        assertThat(refused.reason()).isEqualTo("tokens");
        assertThat(refused.waitMillis()).as("until 100 more tokens at 60 ms each").isPositive()
                .isLessThanOrEqualTo(6_100L);

        assertThat(budget.settle(key, limits, "first", 100).await().atMost(TIMEOUT)).isTrue();

        assertThat(reserve(limits, 500, "second").reserved()).as("the 500 it did not use are back").isTrue();
        assertThat(budget.settle(key, limits, "second", 700).await().atMost(TIMEOUT)).isTrue();
        assertThat(reserve(limits, 300, "third").reason()).as("the 200 more it used are spent: 800 of 1,000")
                .isEqualTo("tokens");
    }

    @Test
    void aCallWhoseReservationTheProvidersHeadersReplacedSettlesNothing() {
        BudgetLimits limits = new BudgetLimits(0, 1_000, 0);
        assertThat(reserve(limits, 600, "before").tokensLeft()).isEqualTo(400);
        // The provider counted more than the budget did (its own count of that call, and another client's): 100 left.
        long[] left = budget.correct(key, limits, new ProviderLimits(0, -1, 1_000, 100, Optional.empty()))
                .await().atMost(TIMEOUT);
        assertThat(left[1]).isEqualTo(100);
        assertThat(reserve(limits, 100, "after").reserved()).as("reserved on top of the provider's count").isTrue();

        long beforeSettle = tokensLeft(limits);
        assertThat(budget.settle(key, limits, "before", 300).await().atMost(TIMEOUT)).isTrue();
        // Time passing adds a token every 60 ms: compared with the 300 the old reservation would give back.
        assertThat(tokensLeft(limits) - beforeSettle).as("nothing given back: the provider's count of it stands")
                .isLessThan(300);

        long beforeLater = tokensLeft(limits);
        assertThat(budget.settle(key, limits, "after", 40).await().atMost(TIMEOUT)).isTrue();
        assertThat(tokensLeft(limits) - beforeLater).as("a call reserved after the correction gives back its unused 60")
                .isGreaterThanOrEqualTo(60);
    }

    private long tokensLeft(BudgetLimits limits) {
        return budgets.state(key, limits).await().atMost(TIMEOUT).tokensLeft();
    }

    @Test
    void aCallLargerThanTheTokenLimitWaitsForAFullBudget() {
        BudgetLimits limits = new BudgetLimits(0, 1_000, 0);
        assertThat(reserve(limits, 5_000).tokensLeft()).as("it takes the whole minute").isZero();
    }

    @Test
    void callsAtOnceHoldLeasesThatASettleOrTheirEndLetsGo() {
        BudgetLimits limits = new BudgetLimits(0, 0, 2);
        assertThat(reserve(limits, 10, "a").reserved()).isTrue();
        assertThat(reserve(limits, 10, "b").reserved()).isTrue();
        Reservation third = reserve(limits, 10, "c");
        assertThat(third.reason()).isEqualTo("concurrency");
        assertThat(third.waitMillis()).as("a hint, at most a second: calls mostly end sooner than their lease").isPositive()
                .isLessThanOrEqualTo(1_000L);

        budget.settle(key, limits, "a", 10).await().atMost(TIMEOUT);
        assertThat(reserve(limits, 10, "c").reserved()).isTrue();

        // A zombie's lease: it runs out, and the next reservation lets its place go.
        budget.settle(key, limits, "b", 10).await().atMost(TIMEOUT);
        assertThat(budget.reserve(key, limits, 10, "zombie", Duration.ofMillis(200), UNAVAILABLE, null).await()
                .atMost(TIMEOUT).reserved())
                .isTrue();
        await("the zombie's lease ran out").atMost(TIMEOUT)
                .until(() -> reserve(limits, 10, "d-" + UUID.randomUUID()).reserved());
        assertThat(budget.settle(key, limits, "zombie", 10).await().atMost(TIMEOUT)).as("nothing left to settle")
                .isFalse();
    }

    @Test
    void aRenewalSetsWhenALeaseRunsOutAndALeaseThatRanOutIsNotTakenAgain() {
        BudgetLimits limits = new BudgetLimits(0, 0, 1);
        assertThat(reserve(limits, 10, "streaming").reserved()).isTrue();
        assertThat(reserve(limits, 10, "next").reason()).as("its lease holds for minutes").isEqualTo("concurrency");

        // A renewal sets the lease's end from now: here, shorter than the lease it had, so that it runs out.
        assertThat(budget.renew(key, "streaming", Duration.ofMillis(200)).await().atMost(TIMEOUT)).isTrue();
        await("the renewed lease ran out").atMost(TIMEOUT).until(() -> reserve(limits, 10, "next").reserved());

        assertThat(budget.renew(key, "streaming", LEASE).await().atMost(TIMEOUT)).as("its place was let go").isFalse();
        assertThat(reserve(limits, 10, "another").reason()).as("and not taken again").isEqualTo("concurrency");
        assertThat(budget.settle(key, limits, "streaming", 10).await().atMost(TIMEOUT)).isFalse();
    }

    @Test
    void theProvidersHeadersBringABudgetSetTooHighDownToItsOwn() {
        BudgetLimits tooHigh = new BudgetLimits(0, 10_000, 0);
        ProviderLimits provider = new ProviderLimits(0, -1, 1_000, 100, Optional.empty());
        long[] left = budget.correct(key, tooHigh, provider).await().atMost(TIMEOUT);
        assertThat(left).containsExactly(-1, 100);
        assertThat(reserve(tooHigh, 200).reason()).as("the provider's 100 left, not our 10,000").isEqualTo("tokens");

        BudgetKey other = new BudgetKey(key.endpoint(), "model-b");
        BudgetLimits lower = new BudgetLimits(50, 0, 0);
        long[] kept = budget.correct(other, lower, new ProviderLimits(500, 499, 0, -1, Optional.empty()))
                .await().atMost(TIMEOUT);
        assertThat(kept[0]).as("a budget set lower stays lower").isEqualTo(50);
    }

    @Test
    void theProvidersResetTellsTheFractionOfTheNextCallItRefilled() {
        // A budget of 60 a minute (one a second) learns from its first call's headers that the provider admits 2 a
        // minute (one every 30 s), 1 left. Full again in 1 s: nearly all of the next call is refilled; in 15 s: half
        // of it; no reset given: none, as far as the budget knows. The budget admits that one call now, and the next
        // one after that much more of the provider's 30 s: the waits come in that order.
        long almostRefilled = waitAfterCorrection("reset-1s", 1_000);
        long halfRefilled = waitAfterCorrection("reset-15s", 15_000);
        long wholeCountOnly = waitAfterCorrection("no-reset", -1);
        // Time passing only shortens a wait measured later: the order holds however slow the machine.
        assertThat(halfRefilled).as("half refilled waits longer than nearly refilled").isGreaterThan(almostRefilled);
        assertThat(halfRefilled).as("and less than the whole count alone says").isLessThan(wholeCountOnly);
    }

    /**
     * @return how long the budget's third call waits (ms) once the provider's headers (1 left of 2, full again in
     *         {@code resetMillis}, -1 for not given) corrected it
     */
    private long waitAfterCorrection(String model, long resetMillis) {
        BudgetKey budgetKey = new BudgetKey(key.endpoint(), model);
        BudgetLimits tooHigh = new BudgetLimits(60, 0, 0);
        assertThat(reserve(budgetKey, tooHigh).reserved()).isTrue();
        long[] left = budget.correct(budgetKey, tooHigh, new ProviderLimits(2, 1, 0, -1, Optional.empty(), resetMillis,
                -1)).await().atMost(TIMEOUT);
        assertThat(left[0]).isEqualTo(1);
        assertThat(reserve(budgetKey, tooHigh).reserved()).isTrue();
        Reservation next = reserve(budgetKey, tooHigh);
        assertThat(next.reason()).isEqualTo("requests");
        return next.waitMillis();
    }

    private Reservation reserve(BudgetKey budgetKey, BudgetLimits limits) {
        return budget.reserve(budgetKey, limits, 10, UUID.randomUUID().toString(), LEASE, UNAVAILABLE, null).await()
                .atMost(TIMEOUT);
    }

    @Test
    void aPauseStopsEveryCallUntilItEndsAndNeverShortens() {
        BudgetLimits limits = BudgetLimits.NONE;
        budget.pause(key, Duration.ofSeconds(60)).await().atMost(TIMEOUT);
        long until = budgets.state(key, limits).await().atMost(TIMEOUT).pausedUntil();
        budget.pause(key, Duration.ofSeconds(1)).await().atMost(TIMEOUT);
        assertThat(budgets.state(key, limits).await().atMost(TIMEOUT).pausedUntil())
                .as("the minute's pause stands, not shortened to a second's").isEqualTo(until);

        Reservation paused = reserve(limits, 10);
        assertThat(paused.reason()).isEqualTo("paused");
        assertThat(paused.waitMillis()).as("until the pause ends").isPositive();

        BudgetKey shortKey = new BudgetKey(key.endpoint(), "short");
        budget.pause(shortKey, Duration.ofMillis(200)).await().atMost(TIMEOUT);
        await("the pause ends").atMost(TIMEOUT).until(() -> budget.reserve(shortKey, limits, 10,
                UUID.randomUUID().toString(), LEASE, UNAVAILABLE, null).await().atMost(TIMEOUT).reserved());
    }

    @Test
    void aServerFoundDownOpensTheCircuitUntilOneProbeSucceeds() {
        BudgetLimits limits = BudgetLimits.NONE;
        Reservation first = reserve(limits, 10, "first");
        assertThat(first.unwell()).as("a server that never failed").isFalse();
        LlmBudget.Outage opened = budget.open(key, "first", Duration.ofSeconds(1), Duration.ofSeconds(10))
                .await().atMost(TIMEOUT);
        assertThat(opened.waitMillis()).isEqualTo(1_000);
        budget.open(key, "in-flight-before", Duration.ofSeconds(1), Duration.ofSeconds(10)).await().atMost(TIMEOUT);
        assertThat(budgets.state(key, limits).await().atMost(TIMEOUT).probeInterval())
                .as("another call's failure does not grow the interval").isEqualTo(1_000);

        Reservation held = reserve(limits, 10);
        assertThat(held.reason()).isEqualTo("open");
        assertThat(held.waitMillis()).as("until the probe").isPositive();

        Reservation probe = await("the probe is due").atMost(TIMEOUT).until(() -> reserve(limits, 10, "probe"),
                Reservation::reserved);
        assertThat(probe.unwell()).as("its success should close the circuit").isTrue();
        Reservation duringProbe = reserve(limits, 10);
        assertThat(duringProbe.reason()).as("the others wait for the probe's outcome").isEqualTo("open");
        assertThat(budget.open(key, "probe", Duration.ofSeconds(1), Duration.ofSeconds(10)).await().atMost(TIMEOUT)
                .waitMillis()).as("the failed probe doubles the interval").isEqualTo(2_000);

        Reservation secondProbe = await("the next probe is due").atMost(TIMEOUT)
                .until(() -> reserve(limits, 10, "probe-2"), Reservation::reserved);
        assertThat(secondProbe.unwell()).isTrue();
        assertThat(budget.close(key).await().atMost(TIMEOUT)).as("the probe succeeded").isTrue();
        Reservation after = reserve(limits, 10);
        assertThat(after.reserved()).as("every call starts again").isTrue();
        assertThat(after.unwell()).isFalse();
        assertThat(budget.close(key).await().atMost(TIMEOUT)).as("nothing left to close").isFalse();
    }

    @Test
    void whileAProbeIsUnderWayTheOthersLookAgainWithinASecond() {
        BudgetLimits limits = BudgetLimits.NONE;
        budget.open(key, "first", Duration.ofMillis(250), Duration.ofSeconds(60)).await().atMost(TIMEOUT);
        long interval = 250;
        for (int probe = 0; interval < 2_000; probe++) { // failed probes: 500, 1,000, 2,000 ms
            String id = "probe-" + probe;
            await("probe " + probe + " is due").atMost(TIMEOUT).until(() -> reserve(limits, 10, id).reserved());
            interval = budget.open(key, id, Duration.ofMillis(250), Duration.ofSeconds(60)).await().atMost(TIMEOUT)
                    .waitMillis();
        }
        await("the next probe is due").atMost(TIMEOUT).until(() -> reserve(limits, 10, "last-probe").reserved());
        Reservation other = reserve(limits, 10);
        assertThat(other.reason()).isEqualTo("open");
        assertThat(other.waitMillis()).as("while it is under way: within a second, not the %d ms interval", interval)
                .isPositive().isLessThanOrEqualTo(1_000L);
    }

    @Test
    void pastTheUnavailableTimeoutCallsThatWouldWaitAreToldTheServerIsUnavailable() {
        BudgetLimits limits = BudgetLimits.NONE;
        budget.open(key, "first", Duration.ofSeconds(60), Duration.ofSeconds(60)).await().atMost(TIMEOUT);
        assertThat(budget.reserve(key, limits, 10, "patient", LEASE, UNAVAILABLE, null).await().atMost(TIMEOUT)
                .reason())
                .as("within fq.llm.outage.timeout: wait").isEqualTo("open");
        Reservation impatient = budget.reserve(key, limits, 10, "impatient", LEASE, Duration.ZERO, null)
                .await().atMost(TIMEOUT);
        assertThat(impatient.reason()).as("past it: the attempt fails").isEqualTo("unavailable");
        assertThat(impatient.waitMillis()).isZero();

        BudgetKey paused = new BudgetKey(key.endpoint(), "paused");
        LlmBudget.Outage outage = budget.pause(paused, Duration.ofSeconds(60)).await().atMost(TIMEOUT);
        assertThat(outage.unavailableMillis()).as("unavailable since this refusal").isLessThan(UNAVAILABLE.toMillis());
        assertThat(budget.reserve(paused, limits, 10, "impatient", LEASE, Duration.ZERO, null).await().atMost(TIMEOUT)
                .reason()).as("a pause counts as unavailable too").isEqualTo("unavailable");
    }

    private Reservation reserve(BudgetLimits limits, long tokens) {
        return reserve(limits, tokens, UUID.randomUUID().toString());
    }

    private Reservation reserve(BudgetLimits limits, long tokens, String leaseId) {
        return budget.reserve(key, limits, tokens, leaseId, LEASE, UNAVAILABLE, null).await().atMost(TIMEOUT);
    }
}

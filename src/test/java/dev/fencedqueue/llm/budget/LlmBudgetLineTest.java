package dev.fencedqueue.llm.budget;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;

import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The budget's line ({@code reserveLlmBudget.lua}): the jobs whose calls the budget held back for want of room wait in
 * line, in the order they were first held back, and only the first in line is reserved, whichever job asks first once
 * a call ended, so that a job handed back to wait in the queue keeps its place among the calls; a call for no job waits
 * behind the line without joining it, and a job that does not call again loses its place; a budget no call asks for a
 * day leaves Redis. One call at once, on one real Redis.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class LlmBudgetLineTest {

    private static final BudgetLimits ONE_AT_ONCE = new BudgetLimits(0, 0, 1);
    private static final Duration LEASE = Duration.ofMinutes(5);
    private static final Duration UNAVAILABLE = Duration.ofMinutes(15);

    @Inject
    LlmBudget budget;

    @Inject
    QueueInspector inspector;

    @Inject
    RedisKeysConfig redisKeys;

    private final BudgetKey key = new BudgetKey("http://llm-" + UUID.randomUUID() + ".test/v1", "model-a");

    @Test
    void theJobsHeldBackAreReservedInTheOrderTheyWereFirstHeldBack() {
        assertThat(reserve("a", "job-a").reserved()).isTrue();
        assertThat(reserve("x", "job-x").reason()).as("held back: job-x is first in line").isEqualTo("concurrency");
        Reservation second = reserve("y", "job-y");
        assertThat(second.reason()).as("job-y, second in line").isEqualTo("line");
        assertThat(second.waitMillis()).as("until job-x is due to call again (at most a second), and 250 ms")
                .isPositive().isLessThanOrEqualTo(1_250L);
        settle("a");

        assertThat(reserve("z", "job-z").reason()).as("a job asking first once the call ended goes behind them")
                .isEqualTo("line");
        assertThat(reserve("y-again", "job-y").reason()).as("job-x is first").isEqualTo("line");
        assertThat(reserve("x-again", "job-x").reserved()).as("job-x's call, on its next attempt").isTrue();

        assertThat(reserve("y-third", "job-y").reason()).as("first in line now, but the call is taken")
                .isEqualTo("concurrency");
        settle("x-again");
        assertThat(reserve("z-again", "job-z").reason()).isEqualTo("line");
        assertThat(reserve("y-fourth", "job-y").reserved()).isTrue();
        settle("y-fourth");
        assertThat(reserve("z-third", "job-z").reserved()).as("job-z's turn came").isTrue();
    }

    @Test
    void aCallForNoJobWaitsBehindTheLineWithoutJoiningIt() {
        assertThat(reserve("a", "job-a").reserved()).isTrue();
        assertThat(reserve("anonymous", null).reason()).isEqualTo("concurrency");
        settle("a");
        assertThat(reserve("z", "job-z").reserved()).as("nobody in line").isTrue();
        assertThat(reserve("x", "job-x").reason()).isEqualTo("concurrency");
        settle("z");
        assertThat(reserve("anonymous-again", null).reason()).as("job-x is in line").isEqualTo("line");
    }

    @Test
    void aJobThatDoesNotCallAgainLosesItsPlace() {
        assertThat(reserve("a", "job-a").reserved()).isTrue();
        assertThat(reserve("x", "job-x").reason()).isEqualTo("concurrency");
        settle("a");
        assertThat(reserve("z", "job-z").reason()).isEqualTo("line");

        // job-x was aborted meanwhile: its place runs out after its wait and the grace (a few seconds), and job-z calls.
        await("job-x's place runs out").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                .until(() -> reserve("z-" + UUID.randomUUID(), "job-z").reserved());
    }

    @Test
    void aBudgetNoCallAsksForADayLeavesRedisWithItsLine() {
        assertThat(reserve("a", "job-a").reserved()).isTrue();
        long lastCall = System.nanoTime();
        assertThat(reserve("x", "job-x").reason()).as("job-x joins the line").isEqualTo("concurrency");

        long day = Duration.ofDays(1).toMillis();
        for (String budgetKey : key.reserveKeys(redisKeys.keyPrefix())) {
            long ttl = inspector.send(Request.cmd(Command.PTTL).arg(budgetKey)).toLong();
            // A day from the last call, less only the time since it, however slow the machine.
            long since = Duration.ofNanos(System.nanoTime() - lastCall).toMillis() + 1;
            assertThat(ttl).as("%s, the line this call created included, expires a day after the last call",
                    budgetKey).isGreaterThanOrEqualTo(day - since).isLessThanOrEqualTo(day);
        }
    }

    private Reservation reserve(String leaseId, String jobId) {
        return budget.reserve(key, ONE_AT_ONCE, 10, leaseId, LEASE, UNAVAILABLE, jobId).await().atMost(TIMEOUT);
    }

    private void settle(String leaseId) {
        assertThat(budget.settle(key, ONE_AT_ONCE, leaseId, 10).await().atMost(TIMEOUT)).isTrue();
    }
}

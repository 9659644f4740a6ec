package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.research.LlmTokens;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fair dispatch in a queue that charges LLM tokens ({@code costUnit} {@code tokens}, as the research queue does): an
 * attempt is charged its tenant's estimate when it starts, then the tokens it streams beyond that, and the count of
 * its tokens settles the charge; an attempt handed back because a rate limit outside the queue is spent (the LLM
 * budget refused its call before it opened) spent nothing, and its tenant gets the charge back (in a queue charging
 * slot time, all but the ms it held its slot); a stalled attempt keeps its charge, which its worker's count settles
 * even when it comes late, from a zombie.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class FairDispatchTokensTest extends FairDispatchSupport {

    @Inject
    LlmTokens llmTokens;

    private QueueKeys keys;

    @BeforeEach
    void chargeTokens() {
        keys = queue.keys();
        redis.send(Request.cmd(Command.HSET).arg(keys.meta()).arg("costUnit").arg("tokens"));
        addJobs("acme", 2);
        addJobs("bravo", 2);
    }

    @Test
    void tokensChargeTheTenantAsTheyStreamAndTheAttemptsCountSettlesIt() {
        Started run = startOne();
        double started = score(run.tenant());
        assertThat(redis.hash(keys.job(run.jobId()))).as("charged the estimate")
                .containsEntry("chargedTokens:" + run.token(), "1000");

        scripts.run(LuaScript.EXTEND_LOCKS, List.of(keys.stalled()), List.of(keys.prefix(), LOCK_MS, run.jobId(),
                run.lockToken(), run.token(), "2500")).await().atMost(TIMEOUT);
        assertThat(score(run.tenant())).as("2,500 tokens streamed: 1,500 beyond the estimate")
                .isEqualTo(started + 1500);

        llmTokens.record(queue.name(), run.jobId(), Long.parseLong(run.token()),
                new LlmTokens.Attempt("result", 100, 300, 0, 0, null)).await().atMost(TIMEOUT);
        assertThat(score(run.tenant())).as("the attempt spent 400 in all: the charge becomes that")
                .isEqualTo(started - 600);
        assertThat(redis.hash(keys.job(run.jobId()))).doesNotContainKey("chargedTokens:" + run.token());
        assertThat(redis.hash(keys.meta())).as("the first real cost replaces the guess of 1,000, not averaged with it")
                .containsEntry("costEstimate", "400.000");
    }

    @Test
    void anAttemptThatFailedBeforeItSpentATokenGivesItsChargeBackNoFurtherThanTheVirtualTime() {
        Started run = startOne();
        assertThat(score(run.tenant())).as("charged the estimate at its start").isEqualTo(1000);

        // Its LLM call failed before it streamed (a 500, a refused connection): no tokens were counted.
        Response failed = scripts.run(LuaScript.MOVE_TO_FAILED, List.of(keys.active(), keys.waitList(),
                keys.delayed(), keys.prioritized(), keys.failed(), keys.marker(), keys.meta(), keys.job(run.jobId()),
                keys.events(run.jobId()), keys.events()), List.of(keys.prefix(), run.jobId(), run.lockToken(),
                run.token(), "the LLM server answered 500", "1000", "100", "100", "worker-F", "0",
                "test-" + UUID.randomUUID() + ":", LOCK_MS)).await().atMost(TIMEOUT);

        assertThat(failed.get(0).toInteger()).as("to be retried").isEqualTo(1);
        assertThat(redis.hash(keys.job(run.jobId()))).as("the charge settled")
                .doesNotContainKey("chargedTokens:" + run.token());
        assertThat(score(run.tenant())).as("given back, to a hair past the virtual time (0): it ran nothing")
                .isEqualTo(0.001);
        assertThat(redis.hash(keys.prefix() + "tenants:estimate")).as("a run that spent nothing is no cost to learn")
                .doesNotContainKey(run.tenant());
    }

    @Test
    void aStalledAttemptKeepsItsChargeUntilItsZombiesLateCountSettlesIt() {
        Started run = startOne();
        scripts.run(LuaScript.EXTEND_LOCKS, List.of(keys.stalled()), List.of(keys.prefix(), LOCK_MS, run.jobId(),
                run.lockToken(), run.token(), "2500")).await().atMost(TIMEOUT);
        assertThat(score(run.tenant())).as("2,500 tokens reported while it streamed").isEqualTo(2500);

        // Its worker froze mid-answer: the lock runs out and the job goes back to wait.
        redis.send(Request.cmd(Command.HSET).arg(keys.job(run.jobId())).arg("lockedUntil").arg("0"));
        Response stalled = scripts.run(LuaScript.MOVE_STALLED_JOBS_TO_WAIT, List.of(keys.stalled(), keys.waitList(),
                keys.active(), keys.prioritized(), keys.failed(), keys.stalledCheck(), keys.marker(), keys.meta(),
                keys.events()), List.of(keys.prefix(), "1", "30000", "100", keys.revokedChannel(), "100"))
                .await().atMost(TIMEOUT);
        assertThat(stalled.get(1).toString()).as("sent back to wait").isEqualTo("waiting");
        assertThat(score(run.tenant())).as("a stall settles nothing: nobody knows yet what the call spent")
                .isEqualTo(2500);
        assertThat(redis.hash(keys.job(run.jobId()))).containsEntry("chargedTokens:" + run.token(), "2500");

        // The worker wakes as a zombie, its call cut off: it counts the tokens it spent, which settles its charge.
        llmTokens.record(queue.name(), run.jobId(), Long.parseLong(run.token()),
                new LlmTokens.Attempt("zombie", 100, 300, 300, 0, null)).await().atMost(TIMEOUT);
        assertThat(score(run.tenant())).as("charged the 400 it spent").isEqualTo(400);
        assertThat(redis.hash(keys.job(run.jobId()))).doesNotContainKey("chargedTokens:" + run.token());
    }

    @ParameterizedTest(name = "cost unit {0}")
    @ValueSource(strings = {"tokens", "slot time"})
    void anAttemptHandedBackByARateLimitCostsItsTenantOnlyWhatItHeldAndKeepsItsPlace(String costUnit) {
        if (costUnit.equals("slot time")) {
            redis.send(Request.cmd(Command.HDEL).arg(keys.meta()).arg("costUnit"));
        }
        String chargeField = costUnit.equals("tokens") ? "chargedTokens:" : "chargedMs:";
        // acme's first job at 0, bravo's at 0, then acme's second at 1,000: the virtual time is 1,000 now.
        List<String> started = new ArrayList<>();
        List<String> tokens = new ArrayList<>();
        String callId = "test-" + UUID.randomUUID() + ":";
        for (int i = 0; i < 3; i++) {
            Response reply = activateReply(1, callId);
            started.add(reply.get(3).toString());
            tokens.add(reply.get(4).toString());
        }
        assertThat(tenantsOf(started)).containsExactly("acme", "bravo", "acme");
        String refused = started.get(1);
        assertThat(score("bravo")).as("charged the estimate").isEqualTo(1000);
        assertThat(redis.hash(keys.job(refused))).containsEntry(chargeField + tokens.get(1), "1000");

        // bravo's call was refused by the LLM budget while acme's second job took its turn: bravo's run is handed back.
        Response handedBack = scripts.run(LuaScript.HAND_BACK_JOB, List.of(keys.active(), keys.waitList(),
                keys.prioritized(), keys.marker(), keys.meta(), keys.job(refused), keys.events()),
                List.of(refused, callId + ":" + refused, tokens.get(1), "1000", "1000")).await().atMost(TIMEOUT);

        assertThat(handedBack.toInteger()).as("handed back").isZero();
        if (costUnit.equals("tokens")) {
            assertThat(score("bravo")).as("the pick undone, below the virtual time: back at its job's place").isZero();
        } else {
            // The ms the attempt held its slot: a few, far below the estimate of 1,000 it was charged at its pick.
            assertThat(score("bravo")).as("charged only the ms it held its slot, below the virtual time")
                    .isGreaterThanOrEqualTo(0).isLessThan(500);
        }
        assertThat(redis.hash(keys.job(refused))).doesNotContainKey(chargeField + tokens.get(1));
        assertThat(redis.hash(keys.prefix() + "tenants:estimate")).as("a run that did not happen is no cost to learn")
                .doesNotContainKey("bravo");
        redis.send(Request.cmd(Command.HDEL).arg(keys.meta()).arg("holdUntil")); // as if the hold had ended
        Response next = activateReply(1, "test-" + UUID.randomUUID() + ":");
        assertThat(next.get(3).toString()).as("bravo's job is the next to start").isEqualTo(refused);
    }

    /** One attempt started: its activation call's lock prefix, its job, fencing token and tenant. */
    private record Started(String callId, String jobId, String token, String tenant) {
        String lockToken() {
            return callId + ":" + jobId;
        }
    }

    private Started startOne() {
        String callId = "test-" + UUID.randomUUID() + ":";
        Response reply = activateReply(1, callId);
        String jobId = reply.get(3).toString();
        return new Started(callId, jobId, reply.get(4).toString(), tenantOf.get(jobId));
    }
}

package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A finishing call whose reply was lost is retried by the worker with the same arguments; the repeat
 * returns the first call's outcome and hands the same activated jobs again, and nothing happens twice (no "not
 * active", no job activated twice, no second terminal event, no job locked by nobody).
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class FinishingRetryTest extends QueueTestSupport {

    private static final String LOCK_MS = "10000";

    @Inject
    LuaScripts scripts;

    @Test
    void aRepeatedCompletionReturnsTheFirstOutcomeAndHandsTheSameJobsAgain() {
        List<String> ids = addThree();
        Activation.Activated running = activateOne();
        assertThat(running.job().id()).isEqualTo(ids.get(0));
        QueueKeys keys = queue.keys();
        List<String> scriptKeys = List.of(keys.active(), keys.completed(), keys.waitList(), keys.prioritized(),
                keys.delayed(), keys.marker(), keys.meta(), keys.events());
        String callId = callId();
        List<String> args = List.of(keys.prefix(), "100", "100", "1", callId, LOCK_MS, "worker-R", running.job().id(),
                running.lockToken(), Long.toString(running.job().fencingToken()), "\"done\"",
                "{\"status\":\"completed\",\"fencingToken\":" + running.job().fencingToken() + "}");

        Response first = run(LuaScript.MOVE_TO_COMPLETED, scriptKeys, args);
        Response repeat = run(LuaScript.MOVE_TO_COMPLETED, scriptKeys, args);

        assertThat(first.get(0).get(0).toLong()).isZero();
        assertThat(repeat.get(0).get(0).toLong()).as("the repeat's outcome for the job").isZero();
        assertSameHandOver(parse(first, callId), parse(repeat, callId), ids);
        assertThat(redis.job(queue, ids.get(0)).state()).isEqualTo(JobState.COMPLETED);
        assertThat(redis.eventTypes(queue, ids.get(0))).containsOnlyOnce("completed");
    }

    @Test
    void aRepeatedFailureReturnsTheFirstOutcomeAndHandsTheSameJobsAgain() {
        List<String> ids = addThree();
        Activation.Activated running = activateOne();
        String id = running.job().id();
        QueueKeys keys = queue.keys();
        List<String> scriptKeys = List.of(keys.active(), keys.waitList(), keys.delayed(), keys.prioritized(),
                keys.failed(), keys.marker(), keys.meta(), keys.job(id), keys.events(id), keys.events());
        String callId = callId();
        List<String> args = List.of(keys.prefix(), id, running.lockToken(), Long.toString(running.job().fencingToken()),
                "the upstream broke", "-1", "100", "100", "worker-R", "1", callId, LOCK_MS);

        Response first = run(LuaScript.MOVE_TO_FAILED, scriptKeys, args);
        Response repeat = run(LuaScript.MOVE_TO_FAILED, scriptKeys, args);

        assertThat(first.get(0).toLong()).as("failed for good").isZero();
        assertThat(repeat.get(0).toLong()).as("the repeat's outcome").isZero();
        assertSameHandOver(parse(first, callId), parse(repeat, callId), ids);
        assertThat(redis.job(queue, id).state()).isEqualTo(JobState.FAILED);
        assertThat(redis.eventTypes(queue, id)).containsOnlyOnce("failed");
    }

    /** The repeat hands the same job with the same lock token, and that job alone is active: none was activated twice. */
    private void assertSameHandOver(Activation first, Activation repeat, List<String> ids) {
        assertThat(first.jobs()).hasSize(1);
        assertThat(repeat.jobs()).hasSize(1);
        assertThat(repeat.code()).isEqualTo(first.code());
        assertThat(repeat.nowMicros()).as("the Redis clock of the repeat").isGreaterThanOrEqualTo(first.nowMicros());
        Activation.Activated handed = first.jobs().get(0);
        Activation.Activated again = repeat.jobs().get(0);
        assertThat(again.job().id()).isEqualTo(handed.job().id()).isEqualTo(ids.get(1));
        assertThat(again.lockToken()).isEqualTo(handed.lockToken());
        assertThat(again.job().fencingToken()).isEqualTo(handed.job().fencingToken());
        assertThat(again.job().state()).isEqualTo(JobState.ACTIVE);
        assertThat(redis.activeIds(queue)).containsExactly(ids.get(1));
        assertThat(redis.job(queue, ids.get(2)).state()).isEqualTo(JobState.WAITING);
    }

    private List<String> addThree() {
        return List.of(add("first"), add("second"), add("third"));
    }

    private String add(String name) {
        return queue.add(name, Map.of("n", name), JobOptions.defaults().withEventStream(true)).await().atMost(TIMEOUT)
                .jobId();
    }

    private Activation.Activated activateOne() {
        QueueKeys keys = queue.keys();
        String callId = callId();
        Response reply = run(LuaScript.MOVE_TO_ACTIVE, List.of(keys.waitList(), keys.active(), keys.prioritized(),
                keys.delayed(), keys.marker(), keys.meta(), keys.events()),
                List.of(keys.prefix(), "1", callId, LOCK_MS, "worker-R", "100", "100"));
        return Activation.parse(reply, 0, queue.name(), callId, "worker-R").jobs().get(0);
    }

    /** Reads the activation part of a finishing call's reply. */
    private Activation parse(Response reply, String callId) {
        return Activation.parse(reply, 1, queue.name(), callId, "worker-R");
    }

    private Response run(LuaScript script, List<String> keys, List<String> args) {
        return scripts.run(script, keys, args).await().atMost(TIMEOUT);
    }

    private static String callId() {
        return "test-" + UUID.randomUUID() + ":";
    }
}

package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisFaultsResource.RedisFaults;
import dev.fencedqueue.testing.RedisFaultsResource;
import dev.fencedqueue.testing.RedisTestResource.InjectRedis;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A finishing call whose reply is lost on the wire: the service reaches Redis through a proxy that forwards a completion script and then
 * cuts the connection before its reply comes back. Redis ran the script (the job completed and the worker's next job
 * was activated in the same call); the worker only sees a broken connection and retries the call. The retry must
 * return the first outcome and hand the next job over again, so that every job runs once and none sits locked until
 * the stalled-job check finds it.
 */
@QuarkusTest
@WithTestResource(value = RedisFaultsResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class FinishingReplyLostTest extends QueueTestSupport {

    @InjectRedis
    RedisFaults redis;

    @Inject
    LuaScripts scripts;

    @Test
    void aCompletionWhoseReplyIsLostOnTheWireIsRetriedAndTheJobItActivatedRunsOnce() {
        List<String> ids = List.of(add("first"), add("second"), add("third"));
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
        redis.proxy().loseReplyTo(scripts.sha(LuaScript.MOVE_TO_COMPLETED));

        workers.start(processor, TestWorkers.options("worker-W").build());

        await().atMost(TIMEOUT).ignoreExceptions().until(() -> ids.stream()
                .allMatch(id -> super.redis.job(queue, id).state() == JobState.COMPLETED));
        assertThat(redis.proxy().lostReplies()).as("a completion's reply was lost").isEqualTo(1);
        for (String id : ids) {
            Job job = super.redis.job(queue, id);
            assertThat(job.attemptsStarted()).as("%s activated once", id).isEqualTo(1);
            assertThat(job.stalledCounter()).as("%s never sat locked until it stalled", id).isZero();
            assertThat(super.redis.eventTypes(queue, id)).as("%s ended once", id).containsOnlyOnce("completed");
        }
        assertThat(processor.startedJobIds()).containsExactlyElementsOf(ids);
    }

    private String add(String name) {
        return queue.add(name, Map.of("n", name), JobOptions.defaults().withEventStream(true)).await().atMost(TIMEOUT)
                .jobId();
    }
}

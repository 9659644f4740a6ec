package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Writes that do not wait for each other: a job's pipelined progress events land in the order they were
 * subscribed, and completions written together are still fenced job by job.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class PipelinedWritesTest extends QueueTestSupport {

    @Inject
    ObjectMapper json;

    @Test
    void pipelinedProgressEventsLandInTheOrderTheyWereSubscribed() throws Exception {
        int count = 2_000;
        // Subscribed first from a worker-pool thread, then from the threads the replies come back on.
        start(ProbeProcessor.of(queue.name(), context -> Multi.createFrom().range(0, count)
                .onItem().transformToUni(i -> context.progress(i * 100 / count, "event " + i)).merge(128)
                .collect().last().replaceWith((Object) "done")
                .runSubscriptionOn(Infrastructure.getDefaultExecutor())), 1);
        String jobId = add(JobOptions.defaults());

        await().atMost(TIMEOUT).until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);

        List<JobEvent> events = redis.events(queue, jobId);
        List<String> messages = new ArrayList<>();
        for (JobEvent event : events.stream().filter(e -> e.type().equals("progress")).toList()) {
            messages.add(json.readTree(event.data()).path("message").asText());
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            expected.add("event " + i);
        }
        assertThat(messages).containsExactlyElementsOf(expected);
        assertThat(events.get(events.size() - 1).type()).isEqualTo("completed");
    }

    @Test
    void completionsWrittenTogetherAreFencedOneByOne() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker worker = start(processor, 3);
        List<String> jobIds = List.of(add(JobOptions.defaults()), add(JobOptions.defaults()), add(JobOptions.defaults()));
        await().atMost(TIMEOUT).until(() -> processor.started() == 3);
        ProbeProcessor.Attempt stale = processor.attempts().stream()
                .filter(attempt -> attempt.context().jobId().equals(jobIds.get(1))).findFirst().orElseThrow();
        // Another epoch took the second job meanwhile: its fencing token moved on.
        redis.send(Request.cmd(Command.HINCRBY).arg(queue.keys().job(jobIds.get(1))).arg("fencingToken").arg(1));

        processor.attempts().forEach(attempt -> attempt.complete("result of " + attempt.context().jobId()));

        await().atMost(TIMEOUT).until(() -> redis.job(queue, jobIds.get(0)).state() == JobState.COMPLETED
                && redis.job(queue, jobIds.get(2)).state() == JobState.COMPLETED);
        await().atMost(TIMEOUT).until(() -> worker.stats().rejectedWrites() == 1);
        assertThat(redis.job(queue, jobIds.get(1)).state()).isEqualTo(JobState.ACTIVE);
        assertThat(redis.job(queue, jobIds.get(1)).returnValue()).isNull();
        assertThat(redis.eventTypes(queue, jobIds.get(1))).doesNotContain("completed");
        assertThat(worker.stats().completed()).isEqualTo(2);
        assertThat(stale.fencingToken()).as("the attempt's token is older than the job's")
                .isLessThan(redis.job(queue, jobIds.get(1)).fencingToken());
    }

    private Worker start(ProbeProcessor processor, int concurrency) {
        // Renewal every 5 s: within the test no lock renewal looks at the tokens.
        Worker worker = workers.create(processor, WorkerOptions.builder("w-pipelined-" + concurrency)
                .concurrency(concurrency).lock(Duration.ofSeconds(10), Duration.ofSeconds(5))
                .stalledCheck(Duration.ofSeconds(5), 1).drainDelay(Duration.ofSeconds(2)).build());
        worker.start();
        return worker;
    }
}

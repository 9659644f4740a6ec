package dev.fencedqueue.queue;

import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.testing.GatedProcessor;
import dev.fencedqueue.testing.RedisClusterResource;
import dev.fencedqueue.testing.RedisProcess;
import dev.fencedqueue.testing.RedisTestResource.InjectRedis;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.redis.client.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The service on a Redis Cluster of three masters ({@code quarkus.redis.client-type=cluster}). A
 * research job runs, streams over SSE and is taken over by a second worker with its zombie fenced off, exactly as on
 * one Redis; every key of the queue lands in one slot; and a script call with a key outside the queue's hash tag is
 * refused before it is sent.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisClusterResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class RedisClusterTest extends ResearchTestSupport {

    private static final Duration STEP = Duration.ofSeconds(20);

    @InjectRedis
    RedisClusterResource.Nodes cluster;

    @Inject
    Queues queues;

    @Inject
    LuaScripts scripts;

    @Test
    void aResearchJobRunsStreamsAndIsTakenOverOnAThreeMasterCluster() {
        GatedProcessor processorA = new GatedProcessor(research);
        Worker workerA = worker(processorA, "worker-A");
        Worker workerB = worker(research, "worker-B");
        workerA.start();
        String jobId = startJob("on a cluster");

        long tokenA;
        long tokenB;
        List<SseClient.Message> seen;
        try (SseClient reader = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(STEP).until(() -> reader.events().stream().anyMatch(e -> "progress".equals(e.event())));
            tokenA = status(jobId).getLong("fencingToken");
            processorA.close();
            freeze(workerA);
            workerB.start();
            await().atMost(STEP).until(() -> "worker-B".equals(status(jobId).getString("workerId")));
            tokenB = status(jobId).getLong("fencingToken");
            processorA.open();
            await("the zombie's writes are refused").atMost(STEP).until(() -> processorA.rejectedWrites() >= 1);
            await().atMost(STEP).until(() -> reader.ended().isDone());
            seen = reader.events();
        }

        assertThat(tokenB).isGreaterThan(tokenA);
        List<String> types = seen.stream().map(SseClient.Message::event).toList();
        int reset = types.indexOf("reset");
        assertThat(reset).as("a reset before B's run: %s", types).isPositive();
        assertThat(seen.subList(0, reset)).extracting(SseClient.Message::fencingToken).containsOnly(tokenA);
        assertThat(seen.subList(reset, seen.size())).extracting(SseClient.Message::fencingToken).containsOnly(tokenB);
        assertThat(types.get(types.size() - 1)).isEqualTo("completed");
        assertThat(status(jobId).getString("state")).isEqualTo("completed");
    }

    @Test
    void everyKeyOfAQueueLivesInOneSlotAndAKeyOutsideItIsRefused() {
        String jobId = startJob("where do my keys live?");
        startResearchWorker("worker-C");
        await().atMost(STEP).until(() -> "completed".equals(status(jobId).getString("state")));

        QueueKeys keys = queues.keys(research.queue());
        String tag = "{" + research.queue() + "}";
        List<Integer> nodesHoldingTheQueue = new ArrayList<>();
        Set<Long> slots = new HashSet<>();
        for (int i = 0; i < cluster.all().size(); i++) {
            RedisProcess node = cluster.all().get(i);
            List<String> found = new ArrayList<>();
            for (Response key : node.call("KEYS", "*" + tag + "*")) {
                found.add(key.toString());
                slots.add(node.call("CLUSTER", "KEYSLOT", key.toString()).toLong());
            }
            if (!found.isEmpty()) {
                nodesHoldingTheQueue.add(i);
                assertThat(found).contains(keys.job(jobId), keys.events(jobId));
            }
        }
        assertThat(nodesHoldingTheQueue).as("one node holds the whole queue").hasSize(1);
        assertThat(slots).as("in one slot").hasSize(1);

        assertThatThrownBy(() -> scripts.run(LuaScript.APPEND_EVENT,
                List.of(keys.job(jobId), "fq:untagged:events", keys.events()), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fq:untagged:events")
                .hasMessageContaining("hash tag " + tag);
        assertThatThrownBy(() -> scripts.run(LuaScript.APPEND_EVENT,
                List.of(keys.job(jobId), "fq:{another-queue}:events", keys.events()), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("{another-queue}");
    }
}

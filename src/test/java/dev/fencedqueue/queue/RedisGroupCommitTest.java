package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.testing.RedisReplicatedResource;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Group commit of new jobs on a master with one replica in sync ({@code fq.redis.wait.replicas=auto}, the default):
 * adds in flight together share Redis's {@code WAIT}s (one confirms every earlier write of its connection), and each
 * add still returns only once the replica has its job (a wait sent after it returned).
 */
@QuarkusTest
@WithTestResource(value = RedisReplicatedResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class RedisGroupCommitTest {

    private static final int ADDS = 200;

    @RedisTestResource.InjectRedis
    RedisReplicatedResource.Pair redis;

    @Inject
    SharedConnection connection;

    @Inject
    Queues queues;

    @Test
    void concurrentAddsShareTheirWaitsAndEachIsOnTheReplicaWhenItReturns() {
        await("the service sees the replica").atMost(TIMEOUT).until(() -> connection.durability().get("replicas") == 1);
        JobQueue queue = queues.queue("group-commit");
        // One add first, so that the connections for durable writes are open and the script is loaded.
        queue.add("job", Map.of("i", -1), JobOptions.defaults()).await().atMost(TIMEOUT);
        redis.master().call("CONFIG", "RESETSTAT");

        // Every add subscribed in one task of the connections' event loop: all are in flight together, on a machine
        // however busy, and their writes go out before the waits that follow them.
        List<CompletableFuture<String>> adds = new ArrayList<>();
        CompletableFuture<Void> subscribed = new CompletableFuture<>();
        connection.context().runOnContext(ignored -> {
            for (int i = 0; i < ADDS; i++) {
                adds.add(queue.add("job", Map.of("i", i), JobOptions.defaults()).map(AddResult::jobId)
                        .subscribeAsCompletionStage());
            }
            subscribed.complete(null);
        });
        subscribed.orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
        List<String> jobIds = adds.stream().map(add -> add.orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join())
                .toList();

        assertThat(jobIds).doesNotHaveDuplicates().hasSize(ADDS);
        assertThat(jobIds).allSatisfy(id -> assertThat(redis.replica().call("EXISTS", queue.keys().job(id)).toInteger())
                .as("job %s on the replica", id).isEqualTo(1));
        long waits = commandCalls("wait");
        // The writes sent in one turn of the event loop go on the lane whose wait is about to be sent, and share it.
        assertThat(waits).as("WAITs for %d adds sent in one turn of the event loop", ADDS).isBetween(1L, 2L);
    }

    private long commandCalls(String command) {
        String stats = redis.master().call("INFO", "commandstats").toString();
        return stats.lines().filter(line -> line.startsWith("cmdstat_" + command + ":")).findFirst()
                .map(line -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"))).orElse(0L);
    }
}

package dev.fencedqueue.events;

import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.fencedqueue.testing.CuttableProxy;
import dev.fencedqueue.testing.GatedProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * 200 SSE clients follow one job through a TCP proxy that cuts connections at random while the job
 * is taken over by another worker. Each client resumes as a browser's {@code EventSource} does (at once, with
 * {@code Last-Event-ID}); each must end with every event of the winning run exactly once, in order, nothing of the
 * older run after the {@code reset} that announced the winner, and one terminal event: a reader never sees an older
 * epoch after a newer one.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class SseThroughFlakyNetworkTest extends ResearchTestSupport {

    private static final int CLIENTS = 200;
    private static final Duration STEP = Duration.ofSeconds(60);
    /**
     * Worker B's whole run, read by 200 clients that reconnect at every cut: about 15 s on a quiet machine, over
     * 60 s once in a CI fork beside the browser tests.
     */
    private static final Duration READERS_END = Duration.ofMinutes(3);

    @Inject
    Vertx vertx;

    @Test
    void everyClientEndsWithEveryEventOfTheWinningRunExactlyOnce() throws Exception {
        GatedProcessor processorA = new GatedProcessor(research);
        Worker workerA = worker(processorA, "worker-A");
        Worker workerB = worker(research, "worker-B");
        workerA.start();
        String jobId = startJob("followed through a flaky network");

        ScheduledExecutorService chaos = Executors.newSingleThreadScheduledExecutor();
        Random random = new Random(42);
        AtomicInteger cuts = new AtomicInteger();
        try (CuttableProxy proxy = CuttableProxy.start(vertx, base.getPort())) {
            String url = "http://127.0.0.1:" + proxy.port() + "/research/stream/" + jobId;
            List<ResumingReader> readers = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                readers.add(new ResumingReader(url));
            }
            chaos.scheduleWithFixedDelay(() -> cuts.addAndGet(proxy.cutSome(0.1, random)), 100, 150,
                    TimeUnit.MILLISECONDS);

            await("the readers see A's run").atMost(STEP).ignoreExceptions()
                    .until(() -> status(jobId).getInt("progress.percent") >= 10);
            long tokenA = status(jobId).getLong("fencingToken");
            processorA.close();
            freeze(workerA);
            workerB.start();
            try {
                await("every reader ends").atMost(READERS_END)
                        .until(() -> readers.stream().allMatch(reader -> reader.done.isDone()));
            } catch (ConditionTimeoutException e) {
                List<ResumingReader> open = readers.stream().filter(reader -> !reader.done.isDone()).toList();
                throw new AssertionError(String.format("%d of %d readers have not ended; the job: %s; the first of "
                        + "them connected %d times and last read event %s", open.size(), CLIENTS,
                        status(jobId).prettify(), open.get(0).connections.get(), open.get(0).lastEventId), e);
            }
            chaos.shutdownNow();

            List<Map<String, Object>> winning = validHistory(jobId);
            long tokenB = status(jobId).getLong("fencingToken");
            assertThat(tokenB).isGreaterThan(tokenA);
            List<String> winningIds = winning.stream().map(e -> (String) e.get("id")).toList();
            int reconnects = readers.stream().mapToInt(r -> r.connections.get() - 1).sum();
            System.out.printf("chaos: %d SSE clients through a flaky proxy: %d connections cut, %d reconnects%n",
                    CLIENTS, cuts.get(), reconnects);
            assertThat(cuts.get()).as("the network did drop connections").isPositive();

            for (ResumingReader reader : readers) {
                List<SseClient.Message> events = reader.events;
                List<String> ids = events.stream().map(SseClient.Message::id).filter(id -> id != null).toList();
                assertThat(ids).as("no event twice").doesNotHaveDuplicates();
                int lastReset = lastIndexOf(events, "reset");
                List<SseClient.Message> afterReset = events.subList(lastReset + 1, events.size());
                assertThat(afterReset).as("only the winning run after its reset")
                        .allSatisfy(e -> assertThat(e.fencingToken()).isEqualTo(tokenB));
                assertThat(afterReset.stream().map(SseClient.Message::id).toList())
                        .as("every event of the winning run, once, in order").isEqualTo(winningIds);
                assertThat(events).filteredOn(e -> List.of("completed", "failed", "aborted").contains(e.event()))
                        .hasSize(1);
            }
        } finally {
            chaos.shutdownNow();
        }
    }

    private static int lastIndexOf(List<SseClient.Message> events, String type) {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (type.equals(events.get(i).event())) {
                return i;
            }
        }
        return -1;
    }

    /** Follows a stream as an {@code EventSource} does: reconnects at once after a drop, with {@code Last-Event-ID}. */
    private static final class ResumingReader {
        final List<SseClient.Message> events = new CopyOnWriteArrayList<>();
        final AtomicInteger connections = new AtomicInteger();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        private final String url;
        private volatile String lastEventId;

        ResumingReader(String url) {
            this.url = url;
            connect();
        }

        private void connect() {
            connections.incrementAndGet();
            SseClient client = SseClient.open(url, lastEventId);
            client.ended().whenComplete((ended, failure) -> {
                boolean terminal = false;
                for (SseClient.Message message : client.events()) {
                    events.add(message);
                    if (message.id() != null) {
                        lastEventId = message.id();
                    }
                    terminal |= List.of("completed", "failed", "aborted").contains(message.event());
                }
                client.close();
                if (terminal) {
                    done.complete(null);
                } else {
                    connect();
                }
            });
        }
    }
}

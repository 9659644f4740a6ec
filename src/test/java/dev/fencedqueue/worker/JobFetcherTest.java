package dev.fencedqueue.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The fetch loop's state across failures: a failed blocking pop on the marker must not let a second activation
 * start while one is in flight (the activation would reserve the worker's slots twice and lock more jobs than it
 * has slots for).
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class JobFetcherTest extends QueueTestSupport {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Inject
    LuaScripts scripts;

    @Inject
    SharedConnection shared;

    @Inject
    EventsConfig events;

    @Inject
    Vertx vertx;

    @Test
    void aFailedMarkerWaitStartsNoSecondActivationWhileOneIsInFlight() {
        QueueKeys keys = queue.keys();
        Context context = shared.context();
        Executor onContext = command -> context.runOnContext(ignored -> command.run());
        WorkerOptions options = TestWorkers.options("w-fetch").concurrency(2).build();
        String name = MarkerWaiter.connectionName(queue.name(), options);
        MarkerWaiter waiter = new MarkerWaiter(shared.client(), keys.marker(), name, options.drainDelay(),
                shared.timeout());
        CountingSlots slots = new CountingSlots(options.concurrency());
        List<String> started = new CopyOnWriteArrayList<>();
        JobFetcher fetcher = new JobFetcher(keys, scripts, events.maxStreamLength(), events.queueStreamMaxLength(),
                options, vertx, onContext, waiter, slots, (job, sentAt) -> started.add(job.job().id()));
        // Commands of this test go over a connection of their own: the shared one carries the held activation.
        Redis control = shared.client();
        try {
            onContext.execute(fetcher::requestFetch);
            await("blocked on the marker").atMost(TIMEOUT).until(() -> blockedClientId(control, name) != null);
            String markerClient = blockedClientId(control, name);

            // Writes (scripts included) wait while the clients are paused: the next activation stays in flight.
            int before = slots.reservations();
            send(control, Request.cmd(Command.CLIENT).arg("PAUSE").arg(30_000).arg("WRITE"));
            onContext.execute(fetcher::requestFetch);
            await("an activation in flight").atMost(TIMEOUT).until(() -> slots.inFlight() == 1);
            slots.free(1); // a job of the worker ends meanwhile: a slot is free beside the activation's
            send(control, Request.cmd(Command.CLIENT).arg("KILL").arg("ID").arg(markerClient));

            await("the marker wait failed and was not retried beside the activation").during(Duration.ofSeconds(2))
                    .atMost(TIMEOUT).until(() -> slots.mostInFlight() == 1 && slots.reservations() == before + 1);
        } finally {
            send(control, Request.cmd(Command.CLIENT).arg("UNPAUSE"));
        }
        await("the held activation answered").atMost(TIMEOUT).until(() -> slots.inFlight() == 0);
        await("blocked on the marker again").atMost(TIMEOUT).until(() -> blockedClientId(control, name) != null);

        String jobId = queue.add("job", null, JobOptions.defaults()).await().atMost(TIMEOUT).jobId();
        await("the job is started once").atMost(TIMEOUT).until(() -> started.contains(jobId));
        assertThat(started).containsExactly(jobId);
        assertThat(slots.mostInFlight()).as("activations in flight at once").isEqualTo(1);
        onContext.execute(fetcher::stop);
        waiter.close().await().atMost(TIMEOUT);
    }

    /** @return the id of the connection named {@code name} blocked in {@code BZPOPMIN}, or {@code null} */
    private static String blockedClientId(Redis control, String name) {
        return Arrays.stream(send(control, Request.cmd(Command.CLIENT).arg("LIST")).toString().split("\n"))
                .filter(line -> line.contains(" name=" + name + " ") && line.contains(" cmd=bzpopmin ")
                        && field(line, "flags").contains("b"))
                .map(line -> field(line, "id")).findFirst().orElse(null);
    }

    private static String field(String client, String name) {
        return Arrays.stream(client.trim().split(" ")).filter(pair -> pair.startsWith(name + "="))
                .map(pair -> pair.substring(name.length() + 1)).findFirst().orElse("");
    }

    private static Response send(Redis control, Request request) {
        return control.send(request).await().atMost(TIMEOUT);
    }

    /**
     * Slots that jobs never take (the test frees one to stand for a job that ends): they count the activations'
     * reservations, at once and in all.
     */
    private static final class CountingSlots implements JobFetcher.Slots {
        private final AtomicInteger capacity = new AtomicInteger();
        private final AtomicInteger inFlight = new AtomicInteger();
        private final AtomicInteger mostInFlight = new AtomicInteger();
        private final AtomicInteger reservations = new AtomicInteger();
        private int reserved;

        CountingSlots(int capacity) {
            this.capacity.set(capacity);
        }

        @Override
        public int free() {
            return capacity.get() - reserved;
        }

        /** Adds {@code n} free slots. */
        void free(int n) {
            capacity.addAndGet(n);
        }

        @Override
        public void reserve(int n) {
            reserved += n;
            reservations.incrementAndGet();
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        }

        @Override
        public void unreserve(int n) {
            reserved -= n;
            inFlight.decrementAndGet();
        }

        int inFlight() {
            return inFlight.get();
        }

        int mostInFlight() {
            return mostInFlight.get();
        }

        int reservations() {
            return reservations.get();
        }
    }
}

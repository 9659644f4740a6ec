package dev.fencedqueue.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.sse.InboundSseEvent;
import jakarta.ws.rs.sse.SseEventSource;
import org.jboss.resteasy.reactive.client.impl.ClientBuilderImpl;

/**
 * The Java load client of {@link SseBenchmark} ({@code -Dbench.sse.client=java}), the counterpart of
 * {@code src/test/sse-bench/client.mjs} with the same arguments, checks and output: {@code perJob} subscribers per
 * stream URL, each a Jakarta REST {@link SseEventSource} (RESTEasy Reactive's, on Vert.x: non-blocking, a few event
 * loops for all connections), so that the client costs the machine far less CPU per delivery than Node's
 * {@code eventsource} and leaves the cores to the server being measured.
 *
 * <pre>java -cp ... dev.fencedqueue.bench.SseLoadClient &lt;perJob&gt; &lt;expectedPerSubscriber&gt; &lt;timeoutMs&gt; &lt;url&gt;...</pre>
 *
 * Prints {@code {"phase":"connected",...}} once every subscriber is open, then {@code {"phase":"done",...}} once every
 * subscriber has its expected events or {@code timeoutMs} after the first delivery (or on {@code stop} on stdin). A
 * subscriber closes its stream at the job's terminal event, as {@code /fenced-stream.js} does.
 * Latencies are from {@code sentAtMicros} in the event's data (the publisher's wall clock) to receipt.
 */
public final class SseLoadClient {

    private static final long STEADY_AFTER_MICROS = 2_000_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final java.util.Set<String> TERMINAL = java.util.Set.of("completed", "failed", "aborted");

    private final int expected;
    private final int total;
    private final Samples latencies;
    private final Samples steady;
    private final Samples fromAppend;
    private final LongAdder deliveries = new LongAdder();
    private final LongAdder outOfOrder = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder resets = new LongAdder();
    private final LongAdder laterRuns = new LongAdder();
    private final AtomicInteger opened = new AtomicInteger();
    private final AtomicInteger complete = new AtomicInteger();
    private final AtomicLong firstAt = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong lastAt = new AtomicLong();
    private final List<SseEventSource> sources = new ArrayList<>();

    private SseLoadClient(int expected, int total) {
        this.expected = expected;
        this.total = total;
        // Twice what is expected: a stream resumed after a dropped connection may deliver more; never overflows.
        this.latencies = new Samples(2 * expected * total + total);
        this.steady = new Samples(2 * expected * total + total);
        this.fromAppend = new Samples(2 * expected * total + total);
    }

    public static void main(String[] args) throws Exception {
        int perJob = Integer.parseInt(args[0]);
        int expected = Integer.parseInt(args[1]);
        long timeoutMicros = Long.parseLong(args[2]) * 1000;
        List<String> urls = List.of(args).subList(3, args.length);
        SseLoadClient load = new SseLoadClient(expected, perJob * urls.size());
        ClientBuilderImpl builder = (ClientBuilderImpl) ClientBuilder.newBuilder();
        // One connection per subscriber: RESTEasy Reactive's pool holds 50 unless told otherwise.
        builder.property("io.quarkus.rest.client.connection-pool-size", load.total + 16);
        // Jakarta REST's SseEventSource has no "open" callback: a stream is open once its response is a 200.
        builder.clientRequestCustomizer(request -> request.response().onSuccess(response -> {
            if (response.statusCode() == 200) {
                load.opened.incrementAndGet();
            }
        }));
        Client client = builder.build();
        for (String url : urls) {
            for (int i = 0; i < perJob; i++) {
                load.subscribe(client, url);
            }
        }
        Thread stdin = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.contains("stop")) {
                        load.finish();
                    }
                }
            } catch (Exception e) {
                // stdin closed
            }
        }, "stdin");
        stdin.setDaemon(true);
        stdin.start();
        boolean connectedSaid = false;
        while (true) {
            TimeUnit.MILLISECONDS.sleep(50);
            if (!connectedSaid && load.opened.get() >= load.total) {
                connectedSaid = true;
                System.out.println("{\"phase\":\"connected\",\"subscribers\":" + load.total + "}");
            }
            long first = load.firstAt.get();
            if (load.complete.get() == load.total || first != Long.MIN_VALUE && nowMicros() - first >= timeoutMicros) {
                load.finish();
            }
        }
    }

    private void subscribe(Client client, String url) {
        Subscriber subscriber = new Subscriber();
        SseEventSource source = SseEventSource.target(client.target(url)).reconnectingEvery(500, TimeUnit.MILLISECONDS)
                .build();
        source.register(event -> {
            if (event.getName() != null && TERMINAL.contains(event.getName())) {
                // As /fenced-stream.js does: the job ended, so the stream is closed rather than reconnected (an
                // EventSource reconnects when the server ends a response; 10,000 at once would load both sides).
                ForkJoinPool.commonPool().execute(() -> source.close(1, TimeUnit.SECONDS));
                return;
            }
            subscriber.onEvent(event);
        }, failure -> errors.increment());
        source.open();
        synchronized (sources) {
            sources.add(source);
        }
    }

    /** One subscriber's state; its events come on one event loop, in order. */
    private final class Subscriber {
        String lastId;
        long firstToken = Long.MIN_VALUE;
        int received;

        void onEvent(InboundSseEvent event) {
            long at = nowMicros();
            if ("reset".equals(event.getName())) {
                resets.increment();
                return;
            }
            String data = event.readData();
            if (data == null || data.isEmpty()) {
                return;
            }
            String id = event.getId();
            if (id != null && !id.isEmpty()) {
                if (lastId != null && compareIds(id, lastId) <= 0) {
                    outOfOrder.increment();
                }
                lastId = id;
            }
            JsonNode json;
            try {
                json = JSON.readTree(data);
            } catch (Exception e) {
                errors.increment();
                return;
            }
            long token = json.path("fencingToken").asLong();
            if (firstToken == Long.MIN_VALUE) {
                firstToken = token;
            } else if (token > firstToken) {
                laterRuns.increment();
            }
            JsonNode sent = json.get("sentAtMicros");
            if (sent == null || !sent.isNumber() || received == expected) {
                return; // not a timed event, or past what this subscriber measures (the job goes on a little longer)
            }
            firstAt.compareAndSet(Long.MIN_VALUE, at);
            lastAt.accumulateAndGet(at, Math::max);
            deliveries.increment();
            latencies.add(at - sent.asLong());
            if (at - firstAt.get() >= STEADY_AFTER_MICROS) {
                steady.add(at - sent.asLong());
            }
            if (id != null && !id.isEmpty()) {
                fromAppend.add(at - Long.parseLong(id.substring(0, id.indexOf('-'))) * 1000);
            }
            if (++received == expected) {
                complete.incrementAndGet();
            }
        }
    }

    private synchronized void finish() {
        synchronized (sources) {
            sources.forEach(source -> source.close(1, TimeUnit.SECONDS));
        }
        // 200 responses, reconnects included: at most one subscriber each.
        ObjectNode done = JSON.createObjectNode().put("phase", "done").put("subscribers", Math.min(opened.get(), total))
                .put("deliveries", deliveries.sum()).put("missing", (long) expected * total - deliveries.sum())
                .put("outOfOrder", outOfOrder.sum()).put("errors", errors.sum()).put("resets", resets.sum())
                .put("laterRuns", laterRuns.sum())
                .put("spanMs", firstAt.get() == Long.MIN_VALUE ? 0 : (lastAt.get() - firstAt.get()) / 1000.0);
        put(done, "p50Ms", latencies, 50);
        put(done, "p90Ms", latencies, 90);
        put(done, "p99Ms", latencies, 99);
        put(done, "maxMs", latencies, 100);
        put(done, "fromAppendP50Ms", fromAppend, 50);
        put(done, "fromAppendP99Ms", fromAppend, 99);
        put(done, "steadyP50Ms", steady, 50);
        put(done, "steadyP99Ms", steady, 99);
        put(done, "steadyMaxMs", steady, 100);
        System.out.println(done);
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    /** Samples hold µs here, so Samples' "millis" are seconds: × 1000 gives ms, printed with two decimals. */
    private static void put(ObjectNode node, String name, Samples samples, double percentile) {
        if (samples.size() == 0) {
            node.putNull(name);
        } else {
            node.put(name, Math.round(samples.percentileMillis(percentile) * 1000 * 100) / 100.0);
        }
    }

    private static int compareIds(String a, String b) {
        int dashA = a.indexOf('-');
        int dashB = b.indexOf('-');
        int byMs = Long.compare(Long.parseLong(a.substring(0, dashA)), Long.parseLong(b.substring(0, dashB)));
        return byMs != 0 ? byMs
                : Long.compare(Long.parseLong(a.substring(dashA + 1)), Long.parseLong(b.substring(dashB + 1)));
    }

    private static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }
}

package dev.fencedqueue.bench;

import static io.restassured.RestAssured.given;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 9's SSE figures (not a test: {@code (cd src/test/sse-bench && npm ci)}, then
 * {@code ./mvnw -Pbench test -Dtest=SseBenchmark}; see BENCHMARKS.md). 100 research jobs whose processor appends a
 * fenced {@code progress} event carrying its wall-clock time ({@code sentAtMicros}) at a fixed pace; a Node process
 * with WHATWG {@code EventSource}s (npm {@code eventsource}) follows each job with {@code N / 100} subscribers and
 * measures the delivery latency (fenced append → received) and the order. Reported per size: deliveries/s, p50/p99
 * latency, the service's CPU per delivered event (this JVM's CPU time over the run ÷ deliveries: the service, its
 * workers and Redis client; Redis and the client are other processes), and heap per idle subscriber (used heap after
 * a GC with every subscriber connected, minus before, ÷ N). Beside them, the ceiling of the same run: the same
 * client reading a static SSE stream that a plain Vert.x server in this JVM writes, each event framed once and the
 * same bytes written to every connection, at the same pace.
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class SseBenchmark {

    private static final int JOBS = 100;
    private static final Duration RUN = Duration.ofSeconds(Integer.getInteger("bench.sse.seconds", 15));
    /** Sizes: subscribers at deliveries per second. */
    private static final String SIZES = System.getProperty("bench.sse.sizes", "1000:10000,10000:20000");
    private static final Path CLIENT = Path.of("src", "test", "sse-bench");

    @TestHTTPResource("/")
    URL base;

    @Inject
    BenchContext bench;

    @Inject
    Vertx vertx;

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void measuresDeliveryLatencyCpuAndMemoryBesideAStaticStream() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(CLIENT.resolve("node_modules/eventsource")),
                "skipped: run `npm ci` in " + CLIENT + " first");
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("environment", Runtime.getRuntime().availableProcessors(), "cores", "\"jobs\": " + JOBS
                + ", \"seconds\": " + RUN.toSeconds());
        StaticSse ceiling = StaticSse.start(vertx);
        try {
            for (String size : SIZES.split(",")) {
                int subscribers = Integer.parseInt(size.split(":")[0]);
                int rate = Integer.parseInt(size.split(":")[1]);
                String tag = "\"subscribers\": " + subscribers + ", \"targetPerSecond\": " + rate;
                Result service = service(subscribers, rate);
                Result floor = ceiling(ceiling, subscribers, rate);
                report.note("sse_" + subscribers + "_deliveries_per_second", service.ratePerSecond(), "deliveries/s",
                        tag + ", \"ceiling\": " + floor.ratePerSecond());
                report.note("sse_" + subscribers + "_p50", service.p50Ms, "ms", tag + ", \"ceiling\": " + floor.p50Ms);
                report.note("sse_" + subscribers + "_p99", service.p99Ms, "ms", tag + ", \"ceiling\": " + floor.p99Ms
                        + ", \"goal\": \"<= 50 ms at 10,000 subscribers, 20,000/s\"");
                report.note("sse_" + subscribers + "_cpu_per_delivery", service.cpuMicrosPerDelivery(), "µs",
                        tag + ", \"ceiling\": " + floor.cpuMicrosPerDelivery() + ", \"goal\": \"<= 5\"");
                report.note("sse_" + subscribers + "_heap_per_idle_subscriber", service.heapBytesPerSubscriber / 1024.0,
                        "KiB", tag + ", \"ceiling\": " + floor.heapBytesPerSubscriber / 1024.0 + ", \"goal\": \"<= 16\"");
                report.note("sse_" + subscribers + "_out_of_order_or_missing", service.outOfOrder + service.lost,
                        "events", tag + ", \"client\": " + service.client + ", \"ceilingClient\": " + floor.client);
            }
        } finally {
            ceiling.close();
        }
    }

    /** Follows 100 research jobs with the client, then runs them at {@code rate} deliveries/s. */
    private Result service(int subscribers, int rate) throws Exception {
        int perJob = subscribers / JOBS;
        long intervalMicros = 1_000_000L * JOBS * perJob / rate;
        int ticks = (int) (RUN.toNanos() / 1000 / intervalMicros);
        List<String> urls = new ArrayList<>();
        List<String> jobIds = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "sse bench " + i))
                    .post("/research/start").then().statusCode(202).extract().path("jobId");
            jobIds.add(jobId);
            urls.add(base + "research/stream/" + jobId);
        }
        long heapBefore = usedHeapAfterGc();
        try (Client client = Client.start(perJob, ticks, urls)) {
            client.awaitPhase("connected", Duration.ofMinutes(2));
            long heapIdle = usedHeapAfterGc();
            long cpuBefore = processCpuNanos();
            Worker worker = bench.startWorker(new TickingProcessor(intervalMicros, ticks), JOBS);
            try {
                JsonNode done = client.awaitPhase("done", RUN.plus(Duration.ofMinutes(2)));
                long cpu = processCpuNanos() - cpuBefore;
                return new Result(done, cpu, (heapIdle - heapBefore) / (double) subscribers);
            } finally {
                bench.stop(worker);
                for (String jobId : jobIds) {
                    given().post("/research/abort/" + jobId);
                }
            }
        }
    }

    private Result ceiling(StaticSse server, int subscribers, int rate) throws Exception {
        int perJob = subscribers / JOBS;
        long intervalMicros = 1_000_000L * JOBS * perJob / rate;
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            urls.add("http://127.0.0.1:" + server.port() + "/static/" + i);
        }
        long heapBefore = usedHeapAfterGc();
        int ticks = (int) (RUN.toNanos() / 1000 / intervalMicros);
        try (Client client = Client.start(perJob, ticks, urls)) {
            client.awaitPhase("connected", Duration.ofMinutes(2));
            long heapIdle = usedHeapAfterGc();
            long cpuBefore = processCpuNanos();
            server.run(intervalMicros, ticks);
            try {
                JsonNode done = client.awaitPhase("done", RUN.plus(Duration.ofMinutes(2)));
                return new Result(done, processCpuNanos() - cpuBefore, (heapIdle - heapBefore) / (double) subscribers);
            } finally {
                server.stopTicking();
            }
        }
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    /** One run's figures: the client's report, this JVM's CPU over the run, heap per idle subscriber. */
    private static final class Result {
        final long deliveries;
        final long outOfOrder;
        final long lost;
        final double p50Ms;
        final double p99Ms;
        final long cpuNanos;
        final double spanSeconds;
        final double heapBytesPerSubscriber;
        final JsonNode client;

        Result(JsonNode done, long cpuNanos, double heapBytesPerSubscriber) {
            this.client = done;
            this.deliveries = done.path("deliveries").asLong();
            this.outOfOrder = done.path("outOfOrder").asLong();
            this.lost = done.path("missing").asLong();
            this.p50Ms = done.path("p50Ms").asDouble();
            this.p99Ms = done.path("p99Ms").asDouble();
            this.cpuNanos = cpuNanos;
            this.spanSeconds = done.path("spanMs").asDouble() / 1000;
            this.heapBytesPerSubscriber = heapBytesPerSubscriber;
        }

        double ratePerSecond() {
            return spanSeconds == 0 ? 0 : deliveries / spanSeconds;
        }

        double cpuMicrosPerDelivery() {
            return deliveries == 0 ? 0 : cpuNanos / 1000.0 / deliveries;
        }
    }

    /** Appends {@code ticks} fenced progress events, one every {@code intervalMicros}, each with its wall-clock time. */
    private final class TickingProcessor implements JobProcessor {

        private final long intervalMicros;
        private final int ticks;

        TickingProcessor(long intervalMicros, int ticks) {
            this.intervalMicros = intervalMicros;
            this.ticks = ticks;
        }

        @Override
        public String queue() {
            return "deep-research";
        }

        @Override
        public Uni<Object> process(JobContext context) {
            // Buffered: under load a tick must wait for the previous write rather than fail the attempt (which the
            // queue would retry, repeating events).
            return Multi.createFrom().ticks().every(Duration.ofNanos(intervalMicros * 1000)).onOverflow().buffer(ticks)
                    .select().first(ticks)
                    .onItem().transformToUniAndConcatenate(tick -> context.progress((int) (tick * 100 / ticks), null,
                            json.createObjectNode().put("sentAtMicros", nowMicros())))
                    .collect().last().replaceWith((Object) Map.of("ticks", ticks));
        }
    }

    /** The Node client process. */
    private static final class Client implements AutoCloseable {

        private final Process process;
        private final BlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();

        private Client(Process process) {
            this.process = process;
            Thread reader = new Thread(() -> {
                ObjectMapper json = new ObjectMapper();
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        if (line.startsWith("{")) {
                            lines.add(json.readTree(line));
                        }
                    }
                } catch (IOException e) {
                    // the process ended
                }
            }, "sse-bench-client");
            reader.setDaemon(true);
            reader.start();
        }

        static Client start(int perJob, int expectedPerSubscriber, List<String> urls) throws IOException {
            List<String> command = new ArrayList<>(List.of("node", "client.mjs", Integer.toString(perJob),
                    Integer.toString(expectedPerSubscriber), Long.toString(RUN.toMillis() * 2)));
            command.addAll(urls);
            Path log = Files.createTempFile("sse-bench-client", ".log");
            return new Client(new ProcessBuilder(command).directory(CLIENT.toFile())
                    .redirectError(log.toFile()).start());
        }

        JsonNode awaitPhase(String phase, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                JsonNode line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line != null && phase.equals(line.path("phase").asText())) {
                    return line;
                }
                if (line == null && !process.isAlive() && lines.isEmpty()) {
                    throw new IllegalStateException("the client exited with " + process.exitValue());
                }
            }
            throw new IllegalStateException("no `" + phase + "` from the client within " + timeout);
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /**
     * The ceiling: a plain Vert.x server in this JVM that streams SSE to the connections of each of 100 groups, each
     * event framed once and the same bytes written to all the group's connections.
     */
    private static final class StaticSse implements AutoCloseable {

        private final Vertx vertx;
        private final HttpServer server;
        private final List<List<HttpServerResponse>> groups;
        private long timer = -1;
        private long sequence;

        private StaticSse(Vertx vertx, HttpServer server, List<List<HttpServerResponse>> groups) {
            this.vertx = vertx;
            this.server = server;
            this.groups = groups;
        }

        static StaticSse start(Vertx vertx) throws Exception {
            List<List<HttpServerResponse>> groups = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                groups.add(new java.util.concurrent.CopyOnWriteArrayList<>());
            }
            HttpServer server = vertx.createHttpServer().requestHandler(request -> {
                int group = Integer.parseInt(request.path().substring("/static/".length()));
                HttpServerResponse response = request.response().setChunked(true)
                        .putHeader("Content-Type", "text/event-stream").putHeader("Cache-Control", "no-cache");
                response.write(": open\n\n");
                groups.get(group).add(response);
                response.closeHandler(ignored -> groups.get(group).remove(response));
            });
            server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            return new StaticSse(vertx, server, groups);
        }

        int port() {
            return server.actualPort();
        }

        /**
         * Sends {@code ticks} events to every group, one group after the other round robin, at the pace of the
         * jobs: every group one event per {@code intervalMicros}.
         */
        void run(long intervalMicros, int ticks) {
            long perTickMs = Math.max(1, intervalMicros / JOBS / 1000);
            int perTick = (int) Math.max(1, perTickMs * 1000 * JOBS / intervalMicros);
            long total = (long) ticks * JOBS;
            sequence = 0;
            timer = vertx.setPeriodic(perTickMs, id -> {
                for (int i = 0; i < perTick && sequence < total; i++) {
                    long seq = sequence++;
                    Buffer event = Buffer.buffer("id: 1-" + seq + "\nevent: progress\ndata: {\"sentAtMicros\":"
                            + nowMicros() + "}\n\n");
                    for (HttpServerResponse response : groups.get((int) (seq % JOBS))) {
                        response.write(event);
                    }
                }
            });
        }

        void stopTicking() {
            vertx.cancelTimer(timer);
        }

        @Override
        public void close() throws Exception {
            stopTicking();
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}

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
import dev.fencedqueue.redis.SharedConnection;
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
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SSE delivery at 1,000 to 10,000 subscribers (not a test: {@code (cd src/test/sse-bench && npm ci)}, then
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
    /** Events each job appends after the last one the client counts (its stream then ends after the client is done). */
    private static final int TAIL_TICKS = 4;
    private static final Duration RUN = Duration.ofSeconds(Integer.getInteger("bench.sse.seconds", 15));
    /** Sizes: subscribers at deliveries per second. */
    private static final String SIZES = System.getProperty("bench.sse.sizes", "1000:10000,10000:20000");
    private static final Path CLIENT = Path.of("src", "test", "sse-bench");
    /**
     * {@code -Dbench.sse.client=java}: the load client is {@link SseLoadClient} (Jakarta REST {@code SseEventSource} in
     * a JVM of its own) instead of Node's {@code eventsource} package ({@code node}, the default).
     */
    private static final boolean JAVA_CLIENT = "java".equals(System.getProperty("bench.sse.client", "node"));

    @TestHTTPResource("/")
    URL base;

    @Inject
    BenchContext bench;

    @Inject
    Vertx vertx;

    @Inject
    SharedConnection redis;

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void measuresDeliveryLatencyCpuAndMemoryBesideAStaticStream() throws Exception {
        Assumptions.assumeTrue(JAVA_CLIENT || Files.isDirectory(CLIENT.resolve("node_modules/eventsource")),
                "skipped: run `npm ci` in " + CLIENT + " first");
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("environment", Runtime.getRuntime().availableProcessors(), "cores", "\"jobs\": " + JOBS
                + ", \"seconds\": " + RUN.toSeconds() + ", \"client\": \"" + (JAVA_CLIENT ? "java" : "node") + "\"");
        StaticSse ceiling = StaticSse.start(vertx);
        try {
            // Warm-up, not recorded: the JIT compiles the append and delivery paths (in a cold JVM C2 alone takes most
            // of a core for the first minute).
            service(1000, 10000);
            appendsAlone(1000, 10000);
            Map<Integer, Double> highest = new java.util.TreeMap<>();
            for (String size : SIZES.split(",")) {
                int subscribers = Integer.parseInt(size.split(":")[0]);
                int rate = Integer.parseInt(size.split(":")[1]);
                String tag = "\"subscribers\": " + subscribers + ", \"targetPerSecond\": " + rate;
                long baselineNanos = appendsAlone(subscribers, rate);
                Result service = service(subscribers, rate);
                Result floor = ceiling(ceiling, subscribers, rate);
                if (service.client.path("steadyP99Ms").asDouble() <= 100 && service.lost + service.outOfOrder == 0) {
                    highest.merge(subscribers, service.ratePerSecond(), Math::max);
                }
                report.note("sse_" + subscribers + "at" + rate + "_deliveries_per_second", service.ratePerSecond(), "deliveries/s",
                        tag + ", \"ceiling\": " + floor.ratePerSecond());
                report.note("sse_" + subscribers + "at" + rate + "_p50", service.p50Ms, "ms", tag + ", \"ceiling\": " + floor.p50Ms);
                report.note("sse_" + subscribers + "at" + rate + "_p99", service.p99Ms, "ms", tag + ", \"ceiling\": " + floor.p99Ms
                        + ", \"goal\": \"<= 50 ms at 10,000 subscribers, 20,000/s\"");
                report.note("sse_" + subscribers + "at" + rate + "_steady_p99", service.client.path("steadyP99Ms").asDouble(), "ms",
                        tag + ", \"ceiling\": " + floor.client.path("steadyP99Ms").asDouble()
                                + ", \"p50\": " + service.client.path("steadyP50Ms").asDouble()
                                + ", \"max\": " + service.client.path("steadyMaxMs").asDouble()
                                + ", \"goal\": \"<= 50 ms at 10,000 subscribers, 20,000/s\"");
                report.note("sse_" + subscribers + "at" + rate + "_append_to_receipt_p99", service.client.path("fromAppendP99Ms").asDouble(),
                        "ms", tag + ", \"p50\": " + service.client.path("fromAppendP50Ms").asDouble());
                report.note("sse_" + subscribers + "at" + rate + "_cpu_per_delivery", service.cpuMicrosPerDelivery(), "µs",
                        tag + ", \"ceiling\": " + floor.cpuMicrosPerDelivery() + ", \"goal\": \"<= 5\"");
                report.note("sse_" + subscribers + "at" + rate + "_delivery_cpu_per_delivery",
                        (service.cpuNanos - baselineNanos) / 1000.0 / Math.max(1, service.deliveries), "µs",
                        tag + ", \"appendsAloneCpuMs\": " + baselineNanos / 1_000_000 + ", \"ceiling\": "
                                + floor.cpuMicrosPerDelivery() + ", \"goal\": \"<= 5\"");
                report.note("sse_" + subscribers + "at" + rate + "_kernel_cpu_per_delivery", service.systemMicrosPerDelivery(), "µs",
                        tag + ", \"ceiling\": " + floor.systemMicrosPerDelivery());
                report.note("sse_" + subscribers + "at" + rate + "_client_cpu_per_delivery", service.clientMicrosPerDelivery(),
                        "µs", tag + ", \"ceiling\": " + floor.clientMicrosPerDelivery());
                report.note("sse_" + subscribers + "at" + rate + "_redis_connections", service.redisConnections, "connections",
                        tag + ", \"goal\": \"<= 8\"");
                report.note("sse_" + subscribers + "at" + rate + "_heap_per_idle_subscriber", service.heapBytesPerSubscriber / 1024.0,
                        "KiB", tag + ", \"ceiling\": " + floor.heapBytesPerSubscriber / 1024.0 + ", \"goal\": \"<= 16\"");
                report.note("sse_" + subscribers + "at" + rate + "_out_of_order_or_missing", service.outOfOrder + service.lost,
                        "events", tag + ", \"client\": " + service.client + ", \"ceilingClient\": " + floor.client);
            }
            highest.forEach((subscribers, rate) -> report.note("sse_" + subscribers + "_highest_rate_steady_p99_under_100ms",
                    rate, "deliveries/s", "\"subscribers\": " + subscribers + ", \"sizes\": \"" + SIZES + "\""));
        } finally {
            ceiling.close();
        }
    }

    /** Follows 100 research jobs with the client, then runs them at {@code rate} deliveries/s. */
    private Result service(int subscribers, int rate) throws Exception {
        Pace pace = Pace.of(subscribers, rate);
        int perJob = pace.perJob();
        long intervalMicros = pace.intervalMicros();
        int ticks = pace.ticks();
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
            Usage connected = Usage.whenConnected(client);
            // The jobs run TAIL_TICKS past what the client measures, so that the measured window is the steady state
            // (as the ceiling's, whose streams never end): not the jobs ending, 10,000 streams at once.
            Worker worker = bench.startWorker(new TickingProcessor(intervalMicros, ticks + TAIL_TICKS), JOBS);
            try {
                java.util.concurrent.atomic.AtomicLong connections = new java.util.concurrent.atomic.AtomicLong();
                java.util.concurrent.ScheduledExecutorService sampler = java.util.concurrent.Executors
                        .newSingleThreadScheduledExecutor();
                sampler.scheduleAtFixedRate(() -> connections.accumulateAndGet(redisClients(), Math::max), 0, 1,
                        TimeUnit.SECONDS);
                JsonNode done;
                try {
                    done = client.awaitPhase("done", RUN.plus(Duration.ofMinutes(2)));
                } finally {
                    sampler.shutdownNow();
                }
                return connected.result(done, heapBefore, subscribers, connections.get(), client);
            } finally {
                bench.stop(worker);
                for (String jobId : jobIds) {
                    given().post("/research/abort/" + jobId);
                }
            }
        }
    }

    /**
     * The jobs' own cost: the same 100 jobs appending the same events at the same pace with no subscriber.
     *
     * @return this JVM's CPU time over the run, ns
     */
    private long appendsAlone(int subscribers, int rate) throws InterruptedException {
        Pace pace = Pace.of(subscribers, rate);
        long intervalMicros = pace.intervalMicros();
        int ticks = pace.ticks();
        List<String> jobIds = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            jobIds.add(given().contentType(ContentType.JSON).body(Map.of("query", "sse bench alone " + i))
                    .post("/research/start").then().statusCode(202).extract().path("jobId"));
        }
        long cpuBefore = processCpuNanos();
        TickingProcessor processor = new TickingProcessor(intervalMicros, ticks);
        Worker worker = bench.startWorker(processor, JOBS);
        try {
            if (!processor.finished.await(RUN.plus(Duration.ofMinutes(2)).toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("the jobs did not finish");
            }
            return processCpuNanos() - cpuBefore;
        } finally {
            bench.stop(worker);
        }
    }

    private Result ceiling(StaticSse server, int subscribers, int rate) throws Exception {
        Pace pace = Pace.of(subscribers, rate);
        int perJob = pace.perJob();
        long intervalMicros = pace.intervalMicros();
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            urls.add("http://127.0.0.1:" + server.port() + "/static/" + i);
        }
        long heapBefore = usedHeapAfterGc();
        int ticks = pace.ticks();
        try (Client client = Client.start(perJob, ticks, urls)) {
            Usage connected = Usage.whenConnected(client);
            server.run(intervalMicros, ticks);
            try {
                JsonNode done = client.awaitPhase("done", RUN.plus(Duration.ofMinutes(2)));
                return connected.result(done, heapBefore, subscribers, 0, client);
            } finally {
                server.stopTicking();
            }
        }
    }

    /**
     * What this JVM and the client had used once every stream was connected: where a run's measurement starts.
     *
     * @param heapIdle this JVM's heap after GC, bytes
     * @param cpuNanos this JVM's CPU time, ns
     * @param systemMicros the whole system's CPU time, µs
     * @param clientMicros the client's CPU time, µs
     */
    private record Usage(long heapIdle, long cpuNanos, long systemMicros, long clientMicros) {

        /** Waits until every stream of {@code client} is connected, then reads what was used so far. */
        static Usage whenConnected(Client client) throws InterruptedException {
            client.awaitPhase("connected", Duration.ofMinutes(2));
            return new Usage(usedHeapAfterGc(), processCpuNanos(),
                    ProcessStats.systemCpuMicros(ProcessHandle.current().pid()), client.cpuMicros());
        }

        /**
         * @param heapBefore this JVM's heap after GC before the client connected, bytes
         * @return the run's figures: what was used since the streams connected, and the heap each subscriber holds
         */
        Result result(JsonNode done, long heapBefore, int subscribers, long redisConnections, Client client) {
            long cpu = processCpuNanos() - cpuNanos;
            long system = ProcessStats.systemCpuMicros(ProcessHandle.current().pid()) - systemMicros;
            return new Result(done, cpu, system, (heapIdle - heapBefore) / (double) subscribers, redisConnections,
                    client.cpuMicros() - clientMicros);
        }
    }

    /** @return the clients Redis has now, all from this JVM (the service and its worker) but the one asking */
    private long redisClients() {
        String list = redis.send(Request.cmd(Command.CLIENT).arg("LIST")).await().atMost(Duration.ofSeconds(5)).toString();
        return list.lines().filter(line -> !line.isBlank()).count() - 1;
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

    /**
     * The pace of one size: {@code perJob} subscribers per job, each job appending an event every
     * {@code intervalMicros} (so that the deliveries add up to the target rate), {@code ticks} events per job in all.
     */
    private record Pace(int perJob, long intervalMicros, int ticks) {

        static Pace of(int subscribers, int ratePerSecond) {
            int perJob = subscribers / JOBS;
            long intervalMicros = 1_000_000L * JOBS * perJob / ratePerSecond;
            return new Pace(perJob, intervalMicros, (int) (RUN.toNanos() / 1000 / intervalMicros));
        }
    }

    /** One run's figures: the client's report, this JVM's CPU over the run, heap per idle subscriber. */
    private static final class Result {
        final long deliveries;
        final long outOfOrder;
        final long lost;
        final double p50Ms;
        final double p99Ms;
        final long cpuNanos;
        final long systemMicros;
        final double spanSeconds;
        final double heapBytesPerSubscriber;
        final long redisConnections;
        /** The load client's CPU time over the run (its process), µs. */
        final long clientMicros;
        final JsonNode client;

        Result(JsonNode done, long cpuNanos, long systemMicros, double heapBytesPerSubscriber, long redisConnections,
                long clientMicros) {
            this.clientMicros = clientMicros;
            this.client = done;
            this.deliveries = done.path("deliveries").asLong();
            this.outOfOrder = done.path("outOfOrder").asLong();
            this.lost = done.path("missing").asLong();
            this.p50Ms = done.path("p50Ms").asDouble();
            this.p99Ms = done.path("p99Ms").asDouble();
            this.cpuNanos = cpuNanos;
            this.spanSeconds = done.path("spanMs").asDouble() / 1000;
            this.heapBytesPerSubscriber = heapBytesPerSubscriber;
            this.systemMicros = systemMicros;
            this.redisConnections = redisConnections;
        }

        double clientMicrosPerDelivery() {
            return deliveries == 0 ? 0 : clientMicros / (double) deliveries;
        }

        double systemMicrosPerDelivery() {
            return deliveries == 0 ? 0 : systemMicros / (double) deliveries;
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
        private final java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
        /** Counts down as each job has appended its events (without polling, which would cost CPU in the run). */
        final java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(JOBS);

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
            // Each job starts at its own phase of the interval, so that the 100 jobs' events are spread evenly over
            // time as the ceiling's are, rather than appended in bursts of 100 at the same instant.
            long phaseMicros = intervalMicros * (started.getAndIncrement() % JOBS) / JOBS;
            return Multi.createFrom().ticks().startingAfter(Duration.ofNanos(phaseMicros * 1000 + 1))
                    .every(Duration.ofNanos(intervalMicros * 1000)).onOverflow().buffer(ticks)
                    .select().first(ticks)
                    .onItem().transformToUniAndConcatenate(tick -> context.progress((int) (tick * 100 / ticks), null,
                            json.createObjectNode().put("sentAtMicros", nowMicros())))
                    .collect().last().invoke(finished::countDown).replaceWith((Object) Map.of("ticks", ticks));
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
            List<String> command = new ArrayList<>(JAVA_CLIENT
                    ? List.of(ProcessHandle.current().info().command().orElse("java"), "-Xms1g", "-Xmx1g",
                            "-cp", System.getProperty("java.class.path"), SseLoadClient.class.getName())
                    : List.of("node", "client.mjs"));
            command.addAll(List.of(Integer.toString(perJob), Integer.toString(expectedPerSubscriber),
                    Long.toString(RUN.toMillis() * 2)));
            command.addAll(urls);
            Path log = Files.createTempFile("sse-bench-client", ".log");
            return new Client(new ProcessBuilder(command).directory(CLIENT.toFile())
                    .redirectError(log.toFile()).start());
        }

        /** @return the client process's CPU time so far, µs */
        long cpuMicros() {
            return ProcessStats.cpuMicros(process.pid());
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
                    // The bytes of the service's progress events (an entry id of Redis's form, the same fields), so
                    // that the client's work per event is the same as with the service.
                    long now = nowMicros();
                    Buffer event = Buffer.buffer("id: " + now / 1000 + "-" + seq + "\nevent: progress\ndata: "
                            + "{\"status\":\"progress\",\"fencingToken\":1795000000000,\"workerId\":\"bench-ceiling\","
                            + "\"percent\":" + (seq * 100 / total) + ",\"sentAtMicros\":" + now + "}\n\n");
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

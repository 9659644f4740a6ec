package dev.fencedqueue.bench;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

import dev.fencedqueue.dev.EmbeddedRedis;
import dev.fencedqueue.testing.PackagedApplication;
import dev.fencedqueue.testing.RedisProcess;
import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;

/**
 * Two packaged service processes that run research jobs against a third one's simulator, limited like a provider, on a
 * Redis of their own: what {@link LlmBudgetBenchmark} measures in one phase. Closing it ends the three processes (the
 * services first) and Redis.
 */
final class LlmFleet implements AutoCloseable {

    private static final Path LOGS = Path.of("target", "bench-processes").toAbsolutePath();
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final String QUEUE = "deep-research";
    private static final String ADMIN_PASSWORD = "admin";

    private final RedisProcess redis;
    private final List<ServiceProcess> processes = new ArrayList<>();
    private final ServiceProcess llm;
    private final List<ServiceProcess> instances;

    /**
     * Starts Redis, the simulator's process ({@code fq.worker.enabled=false}) and two service processes side by side,
     * and waits until all three are ready.
     *
     * @param application the packaged application, must not be {@code null}
     * @param name the phase's name, for the processes' log files, must not be {@code null}
     * @param simulator configuration of the simulator's process, must not be {@code null}
     * @param instance configuration of both service processes; {@code fq.llm.url} is added, must not be {@code null}
     */
    LlmFleet(PackagedApplication application, String name, Map<String, String> simulator, Map<String, String> instance) {
        redis = RedisProcess.startAlone("--save", "", "--appendonly", "no");
        try {
            Map<String, String> llmConfig = new HashMap<>(simulator);
            llmConfig.put("fq.worker.enabled", "false");
            llm = start(application, name + "-llm", llmConfig);
            Map<String, String> config = new HashMap<>(instance);
            config.put("fq.llm.url", llm.url("/simulator"));
            config.put("fq.admin.password", ADMIN_PASSWORD);
            ServiceProcess a = start(application, name + "-A", config);
            ServiceProcess b = start(application, name + "-B", config);
            instances = List.of(a, b);
            for (ServiceProcess process : processes) {
                process.awaitReady(READY_TIMEOUT);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** @return the simulator's process */
    ServiceProcess llm() {
        return llm;
    }

    /** @return the two service processes */
    List<ServiceProcess> instances() {
        return instances;
    }

    /**
     * Starts research jobs at once: adds them to the paused research queue, as many through each instance (the first
     * through the first), then resumes the queue ({@code POST /admin/queues/deep-research/resume}), so that the
     * workers of both instances take them all in the same few milliseconds.
     *
     * @param count how many
     * @param label a word in each job's query, for the logs
     * @return their ids, in the order they were added
     */
    List<String> startJobs(int count, String label) {
        admin().post("/admin/queues/" + QUEUE + "/pause").then().statusCode(200);
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(instances.get(i % 2).request().contentType(ContentType.JSON)
                    .body(Map.of("query", String.format("What limits the fleet's LLM calls? (%s, job %02d)", label, i)))
                    .post("/research/start").then().statusCode(202).extract().path("jobId"));
        }
        admin().post("/admin/queues/" + QUEUE + "/resume").then().statusCode(200);
        return jobs;
    }

    /**
     * Adds research jobs as users send them: one at a time, evenly spread over {@code over}, by turns through each
     * instance (the first through the first), to the running queue, so that each is taken and calls as soon as it
     * comes.
     *
     * @param count how many
     * @param over the time from the first to the last, 0 or more
     * @param label a word in each job's query, for the logs
     * @return their ids, in the order they were added
     */
    List<String> addAsTheyCome(int count, Duration over, String label) {
        long step = count <= 1 ? 0 : over.toNanos() / (count - 1);
        long start = System.nanoTime();
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            LockSupport.parkNanos(start + i * step - System.nanoTime()); // the pace of arrivals, not a wait for them
            jobs.add(instances.get(i % 2).request().contentType(ContentType.JSON)
                    .body(Map.of("query", String.format("What limits the fleet's LLM calls? (%s, job %02d)", label, i)))
                    .post("/research/start").then().statusCode(202).extract().path("jobId"));
        }
        return jobs;
    }

    /**
     * Waits until every job completed or failed.
     *
     * @param jobs the job ids, must not be {@code null}
     * @param timeout the longest wait
     * @return their statuses ({@code GET /research/status}), in the same order
     */
    List<JsonPath> awaitEnded(List<String> jobs, Duration timeout) {
        await("every job ended").atMost(timeout).pollInterval(Duration.ofSeconds(1)).until(() -> jobs.stream()
                .map(this::status).allMatch(status -> "completed".equals(status.getString("state"))
                        || "failed".equals(status.getString("state"))));
        return jobs.stream().map(this::status).toList();
    }

    /** @return the job's status */
    JsonPath status(String jobId) {
        return instances.get(0).request().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }

    /** @return the job's every event ({@code GET /research/history}): {@code id}, {@code type}, ... */
    JsonPath history(String jobId) {
        return instances.get(0).request().get("/research/history/" + jobId).then().statusCode(200).extract().jsonPath();
    }

    /**
     * @param reason a reason of {@code fq_llm_rate_limited_total}
     * @return the counter summed over both instances
     */
    double rateLimited(String reason) {
        String prefix = "fq_llm_rate_limited_total{reason=\"" + reason + "\"}";
        double sum = 0;
        for (ServiceProcess process : instances) {
            for (String line : process.request().get("/q/metrics").then().statusCode(200).extract().asString()
                    .split("\n")) {
                if (line.startsWith(prefix)) {
                    sum += Double.parseDouble(line.substring(prefix.length()).trim());
                }
            }
        }
        return sum;
    }

    /** @return the tokens the fleet's LLM budget admits now ({@code GET /admin/llm/budgets}), -1 when it has none */
    long budgetTokensLeft() {
        List<Integer> left = admin().get("/admin/llm/budgets").then().statusCode(200).extract().jsonPath()
                .getList("tokens.left");
        return left == null || left.isEmpty() || left.get(0) == null ? -1 : left.get(0);
    }

    private RequestSpecification admin() {
        return instances.get(0).request().auth().preemptive().basic("admin", ADMIN_PASSWORD);
    }

    @Override
    public void close() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            processes.get(i).close();
        }
        redis.close();
    }

    private ServiceProcess start(PackagedApplication application, String name, Map<String, String> extra) {
        Map<String, String> config = new HashMap<>(extra);
        config.put("quarkus.redis.hosts", redis.uri());
        config.put("fq.worker.id", name);
        ServiceProcess process = ServiceProcess.start(application, ServiceProcess.TEST_JVM_OPTIONS, name,
                EmbeddedRedis.freePort(), config, Map.of(), LOGS.resolve(name + ".log"));
        processes.add(process);
        return process;
    }
}

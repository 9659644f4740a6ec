package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two real processes share one LLM budget ({@code fq.llm.budget.requests-per-minute=30}) against a third process's
 * simulator limited like a provider to 31 requests a minute: 32 jobs at once (16 worker slots in each process) make no
 * {@code 429}, because the two processes' calls together stay within the budget (with a budget each, even once the
 * simulator's headers brought both down to its 31, they would send up to 62: one is refused); the calls the budget
 * cannot admit yet wait in the queue, and every job completes with one attempt, its status showing what its tokens cost
 * at {@code fq.llm.price.*}. And a budget set higher than the provider's limit comes down to it for both processes once
 * one call has read the provider's headers: 32 jobs then meet no {@code 429}. With one call at once for the fleet, a
 * tenant that submitted six jobs does not take the budget of both processes from one that submitted two just after
 * (fair dispatch).
 * <p>
 * The limits are a few tens a minute rather than a few: a budget refills one call every 60 s divided by its limit, and
 * each of the first two tests waits for the two calls beyond it (about 4 s here, 20 s with limits of 6 and 7).
 */
class LlmBudgetProcessIT {

    /** The provider's limit, requests a minute: one more than the budget the processes share. */
    private static final int PROVIDER_LIMIT = 31;
    /** One more job than the provider admits at once, all started together (two processes, {@link #SLOTS} each). */
    private static final int JOBS = PROVIDER_LIMIT + 1;
    private static final int SLOTS = JOBS / 2;
    /** The research queue ({@code fq.research.queue}'s default). */
    private static final String QUEUE = "deep-research";
    /** The operator API's user, who pauses the research queue while a test adds its jobs, and its password. */
    private static final String ADMIN_USER = "ops";
    private static final String ADMIN_PASSWORD = "budget-it";
    private static final Map<String, String> ADMIN = Map.of("FQ_ADMIN_USERNAME", ADMIN_USER, "FQ_ADMIN_PASSWORD",
            ADMIN_PASSWORD);

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(ProcessFleet.SHORT_LOCKS);

    @Test
    void twoProcessesCallsStayWithinTheBudgetTheyShare() {
        ServiceProcess llm = simulator(Map.of("fq.simulator.provider.requests-per-minute", String.valueOf(PROVIDER_LIMIT)));
        // Locks of 10 s rather than the fleet's 1 s: nothing here stops a process, and the provider's calls are
        // counted, which a takeover after a renewal late on a busy machine would repeat (46 calls for 32 jobs,
        // 2026-12-02).
        Map<String, String> config = config(llm, Map.of("fq.llm.budget.requests-per-minute",
                String.valueOf(PROVIDER_LIMIT - 1), "fq.llm.price.input", "2.50", "fq.llm.price.output", "10",
                "fq.worker.concurrency", String.valueOf(SLOTS), "fq.worker.lock.duration", "10s",
                "fq.worker.lock.renew-interval", "2s"));
        ServiceProcess a = fleet.start("proc-A", config, ADMIN);
        ServiceProcess b = fleet.start("proc-B", config, ADMIN);
        fleet.awaitReady(llm, a, b);

        List<String> jobs = startTogether(a, b, "budget question ");

        // 30 calls at once, then one every 2 s as the budget refills.
        await("every job completed").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .until(() -> jobs.stream().allMatch(id -> "completed".equals(status(a, id).getString("state"))));
        for (String id : jobs) {
            JsonPath status = status(a, id);
            assertThat(status.getInt("attemptsMade")).as("job %s: waiting counted no attempt", id).isEqualTo(1);
            // What its tokens cost at the prices, in the currency's units (micro-units counted in Redis).
            long prompt = status.getLong("tokens.result.promptTokens");
            long completion = status.getLong("tokens.result.completionTokens");
            assertThat(status.getDouble("cost.result")).as("job %s: its cost", id)
                    .isCloseTo((2.5 * prompt + 10.0 * completion) / 1_000_000, org.assertj.core.data.Offset.offset(2e-6));
        }
        JsonPath provider = llm.request().get("/simulator/provider").then().statusCode(200).extract().jsonPath();
        assertThat(provider.getInt("rateLimited")).as("the provider refused no call").isZero();
        assertThat(provider.getInt("admitted")).isEqualTo(JOBS);
    }

    @Test
    void theProvidersHeadersBringABudgetSetTooHighDownForTheWholeFleet() {
        ServiceProcess llm = simulator(Map.of("fq.simulator.provider.requests-per-minute", String.valueOf(PROVIDER_LIMIT)));
        // A budget of 100 a minute, where the provider admits 31.
        Map<String, String> config = config(llm, Map.of("fq.llm.budget.requests-per-minute", "100",
                "fq.worker.concurrency", String.valueOf(SLOTS)));
        ServiceProcess a = fleet.start("high-A", config, ADMIN);
        ServiceProcess b = fleet.start("high-B", config, ADMIN);
        fleet.awaitReady(llm, a, b);

        // One call learns the provider's limit from its headers (31, 30 left), for every process: Redis holds it.
        String first = start(a, "the call that learns the limit");
        await("the first job completed").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .until(() -> "completed".equals(status(a, first).getString("state")));
        List<String> jobs = startTogether(a, b, "a budget set too high ");

        // 30 calls at once, then one every 1.9 s as the provider's bucket refills: no call meets a 429.
        await("every job completed").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .until(() -> jobs.stream().allMatch(id -> "completed".equals(status(a, id).getString("state"))));
        JsonPath provider = llm.request().get("/simulator/provider").then().statusCode(200).extract().jsonPath();
        assertThat(provider.getInt("rateLimited")).as("the provider refused no call").isZero();
        assertThat(provider.getInt("admitted")).isEqualTo(JOBS + 1);
    }

    @Test
    void aHeavyTenantDoesNotTakeTheWholeBudgetOfTwoProcesses() {
        ServiceProcess llm = simulator(Map.of("fq.simulator.answer.token-interval", "20ms"));
        // One call at once for the fleet, one worker slot per process, tenants from X-Tenant-Id.
        Map<String, String> config = config(llm, Map.of("fq.llm.budget.max-concurrent", "1",
                "fq.tenancy.source", "header", "fq.worker.concurrency", "1"));
        ServiceProcess a = fleet.start("fair-A", config, ADMIN);
        ServiceProcess b = fleet.start("fair-B", config, ADMIN);
        fleet.awaitReady(llm, a, b);

        // Added while the queue is paused: the order they finish in is fair dispatch's, not how fast they were added.
        List<String> heavy = new ArrayList<>();
        List<String> light = new ArrayList<>();
        List<String> all = whilePaused(a, b, () -> {
            for (int i = 0; i < 6; i++) {
                heavy.add(start(a, "heavy", "heavy question " + i));
            }
            light.add(start(b, "light", "light question 0"));
            light.add(start(b, "light", "light question 1"));
            List<String> added = new ArrayList<>(heavy);
            added.addAll(light);
            return added;
        });
        await("every job completed").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .until(() -> all.stream().allMatch(id -> "completed".equals(status(a, id).getString("state"))));
        Map<String, Long> finishedOn = new HashMap<>();
        all.forEach(id -> finishedOn.put(id, status(a, id).getLong("finishedOn")));
        long lightDone = light.stream().mapToLong(finishedOn::get).max().orElseThrow();
        long heavyDoneAfter = heavy.stream().filter(id -> finishedOn.get(id) > lightDone).count();
        String order = all.stream().sorted(Comparator.comparing(finishedOn::get))
                .map(id -> (light.contains(id) ? "light" : "heavy") + "@" + finishedOn.get(id))
                .collect(Collectors.joining(", "));
        System.out.println("LlmBudgetProcessIT: the tenants' jobs finished in this order: " + order);
        assertThat(heavyDoneAfter).as("heavy jobs still to finish once the light tenant's two had (in one line, none); "
                + "finished in this order: %s", order).isPositive();
        for (String id : all) {
            assertThat(status(a, id).getInt("attemptsMade")).as("job %s: waiting counted no attempt", id).isEqualTo(1);
        }
    }

    /**
     * Adds {@link #JOBS} research jobs, half on each process, while the research queue is paused ({@link #whilePaused}):
     * their calls then go at once, however long adding them took (the provider refills one call every 2 s, about the
     * time 32 requests may take on a busy machine).
     *
     * @return the jobs' ids
     */
    private static List<String> startTogether(ServiceProcess a, ServiceProcess b, String query) {
        return whilePaused(a, b, () -> {
            List<String> jobs = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                jobs.add(start(i % 2 == 0 ? a : b, query + i));
            }
            return jobs;
        });
    }

    /**
     * Pauses the research queue through {@code a}, adds jobs with {@code add}, waits until all it added wait in the
     * paused queue, and resumes it through {@code b}.
     *
     * @return the ids of the jobs {@code add} added, as it returns them
     */
    private static List<String> whilePaused(ServiceProcess a, ServiceProcess b, Supplier<List<String>> add) {
        admin(a).post("/admin/queues/" + QUEUE + "/pause").then().statusCode(200);
        List<String> jobs = add.get();
        await("every job added").atMost(Duration.ofSeconds(60))
                .until(() -> admin(b).get("/admin/queues/" + QUEUE + "/jobs?state=paused&count=1").then()
                        .statusCode(200).extract().jsonPath().getInt("total") == jobs.size());
        admin(b).post("/admin/queues/" + QUEUE + "/resume").then().statusCode(200);
        return jobs;
    }

    private static RequestSpecification admin(ServiceProcess process) {
        return process.request().auth().preemptive().basic(ADMIN_USER, ADMIN_PASSWORD);
    }

    private static String start(ServiceProcess process, String tenant, String query) {
        return process.request().header("X-Tenant-Id", tenant).contentType(ContentType.JSON)
                .body(Map.of("query", query)).post("/research/start").then().statusCode(202).extract().path("jobId");
    }

    /** @return the simulator in a process of its own, answering 20 words a token every 5 ms, as {@code more} says */
    private ServiceProcess simulator(Map<String, String> more) {
        Map<String, String> config = new HashMap<>(Map.of("fq.worker.enabled", "false",
                "fq.simulator.answer.words", "20", "fq.simulator.answer.token-interval", "5ms"));
        config.putAll(more);
        return fleet.start("llm", config, Map.of());
    }

    /** @return a service process's configuration: chat completions to the simulator, and {@code more} */
    private static Map<String, String> config(ServiceProcess llm, Map<String, String> more) {
        Map<String, String> config = new HashMap<>(Map.of("fq.llm.protocol", "openai", "fq.llm.url",
                llm.url("/simulator"), "fq.llm.model", "fenced-queue-simulator"));
        config.putAll(more);
        return config;
    }

    private static String start(ServiceProcess process, String query) {
        return process.request().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
    }

    private static JsonPath status(ServiceProcess process, String jobId) {
        return process.request().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }
}

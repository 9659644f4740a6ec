package dev.fencedqueue.testing;

import static io.restassured.RestAssured.given;

import java.net.URL;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.fencedqueue.config.WorkerConfig;
import dev.fencedqueue.research.ResearchProcessor;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import dev.fencedqueue.worker.WorkerOptions;
import io.quarkus.test.common.http.TestHTTPResource;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the tests of the research API share (with {@link WorkersOffProfile}, where the service runs no worker
 * of its own): the service's base URL, research workers with the configured lock settings that the test
 * starts and that are stopped after it, and calls of {@code /research/start}, {@code status} and
 * {@code valid-history}.
 */
public abstract class ResearchTestSupport {

    /** The service's base URL, ending with {@code /}. */
    @TestHTTPResource("/")
    protected URL base;

    @Inject
    protected WorkerManager manager;

    @Inject
    protected WorkerConfig config;

    /** The service's research processor. */
    @Inject
    protected ResearchProcessor research;

    /** The test's workers, stopped after each test. */
    protected TestWorkers workers;

    @BeforeEach
    void researchWorkers() {
        workers = new TestWorkers(manager);
    }

    @AfterEach
    void stopResearchWorkers() {
        workers.stopAll();
    }

    /** @return a worker of the research queue running {@code processor}, configured as the service's, not started */
    protected Worker worker(JobProcessor processor, String workerId) {
        return workers.create(processor, WorkerOptions.from(config, workerId));
    }

    /** @return a research worker, configured as the service's, started */
    protected Worker startResearchWorker(String workerId) {
        Worker worker = worker(research, workerId);
        worker.start();
        return worker;
    }

    /** @return the id of a research job started with {@code POST /research/start} (asserted 202) */
    protected static String startJob(String query) {
        return given().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
    }

    /** @return the job's {@code GET /research/status} body (asserted 200) */
    protected static JsonPath status(String jobId) {
        return given().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }

    /** @return the job's {@code GET /research/valid-history} body (asserted 200): the latest run's events */
    /**
     * Publishes answer text as a processor of the OpenAI protocol does: a fenced {@code progress} event with a
     * {@code delta}.
     *
     * @return the stream entry id
     */
    protected static String delta(JobContext context, String text) {
        return context.progress(50, null, JsonNodeFactory.instance.objectNode().put("delta", text)).await()
                .atMost(Timeouts.TIMEOUT);
    }

    protected static List<Map<String, Object>> validHistory(String jobId) {
        return given().get("/research/valid-history/" + jobId).then().statusCode(200).extract().jsonPath().getList("$");
    }

    /**
     * @param event an event of a {@code history} or {@code valid-history} body
     * @return its {@code fencingToken} (JSON numbers come back as {@code Integer} or {@code Long})
     */
    public static long fencingToken(Map<String, Object> event) {
        return ((Number) event.get("fencingToken")).longValue();
    }

    /** @return the {@code fencingToken} of each event of a {@code history} or {@code valid-history} body, in order */
    public static List<Long> fencingTokens(List<Map<String, Object>> events) {
        return events.stream().map(ResearchTestSupport::fencingToken).toList();
    }
}

package dev.fencedqueue.testing;

import static dev.fencedqueue.worker.WorkerTestAccess.thaw;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import java.net.URL;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.fencedqueue.worker.WorkerConfig;
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

    /** The configuration a test may change while the application runs ({@code null} in an integration test). */
    @Inject
    protected SwitchableConfig settings;

    /** The test's workers, stopped after each test. */
    protected TestWorkers workers;

    @BeforeEach
    void researchWorkers() {
        workers = new TestWorkers(manager);
    }

    @AfterEach
    void stopResearchWorkers() {
        workers.stopAll();
        if (settings != null) {
            settings.endOfTest();
        }
    }

    /**
     * From now on until the test ends, the built-in simulator streams the words of an answer 1 ms apart and the steps
     * of a research-protocol run 10 ms apart, whatever its profile's pace: for the runs after a test's last takeover,
     * which nothing interrupts any more, so that the test does not wait for them at the pace its takeovers needed. A
     * chat completion or research stream already open keeps its pace, so call it before the takeover whose new run
     * should be quick, while the run it takes over from still streams; a background response (the Responses API) goes
     * on at the new pace from its next word, so call it once the takeover is done.
     */
    protected void simulatorAtFullSpeed() {
        settings.adjust("fq.simulator.answer.token-interval", "1ms");
        settings.adjust("fq.simulator.research.step-interval", "10ms");
    }

    /** @return a worker of the research queue running {@code processor}, configured as the service's, not started */
    protected Worker worker(JobProcessor processor, String workerId) {
        return workers.create(processor, WorkerOptions.from(config, workerId));
    }

    /**
     * @return two held processors of the research queue and their workers, {@code worker-A} started and
     *         {@code worker-B} not ({@link Takeover#of}), configured as the service's
     */
    protected Takeover heldPair() {
        return Takeover.of(research.queue(), this::worker);
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

    /** @return the job's {@code GET /research/valid-history} body (asserted 200): the events a reader should see */
    protected static List<Map<String, Object>> validHistory(String jobId) {
        return given().get("/research/valid-history/" + jobId).then().statusCode(200).extract().jsonPath().getList("$");
    }

    /**
     * A takeover as a stalled worker causes one ({@link Takeover}, watching the job's status): {@code from} is frozen
     * (as if paused by GC: it stops renewing its lock but its job goes on), {@code to} is started and takes the job
     * over once the lock expired; {@code from}'s next write is refused and it lets go of the job, and only then is it
     * thawed. A frozen worker renews no lock, so the refused write is what tells the zombie (thawed earlier, its next
     * renewal could tell it first, before it wrote anything: a zombie without a refused write).
     *
     * @param from the worker running the job, started
     * @param to another worker of the job's queue, not started
     * @param jobId the job, whose run on {@code from} keeps writing (an answer streaming)
     * @return the fencing token of {@code to}'s run
     */
    protected static long takeOver(Worker from, Worker to, String jobId) {
        long after = Takeover.takeOver(from, to, () -> status(jobId).getLong("fencingToken"));
        await("the zombie's write is refused and it lets go of the job").atMost(Timeouts.TIMEOUT)
                .until(() -> !from.activeJobIds().contains(jobId));
        thaw(from);
        return after;
    }

    /** @return the answer text a reader assembles from the {@code delta} of each event of {@code events} */
    protected static String answerText(List<Map<String, Object>> events) {
        StringBuilder text = new StringBuilder();
        events.forEach(event -> text.append(event.getOrDefault("delta", "")));
        return text.toString();
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

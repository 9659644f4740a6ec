package dev.fencedqueue.it;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.fencedqueue.simulator.SimulatorAnswers;
import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Takeovers that continue the answer, with real processes: the LLM is a third instance's simulator (so that it outlives
 * the instance that runs the job); instance A runs a research job and is stopped in the middle of the answer by
 * SIGSTOP, {@code kill -9} or SIGTERM (which hands the job back); instance B takes it over and continues the answer.
 * The job's result and the text a reader keeps equal the answer of an uninterrupted run exactly.
 */
class ResumeProcessIT {

    /** Words of the answer: A is stopped once it has 300, so that B continues the other half. */
    private static final int WORDS = 600;

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(ProcessFleet.SHORT_LOCKS);

    @Test
    void aStoppedProcessesAnswerIsContinuedByAnotherProcess() {
        String jobId = takenOver("openai", "stopped mid-answer", ServiceProcess::freeze, "continue");
        assertThat(status(jobId).getString("workerId")).isEqualTo("proc-B");
    }

    @Test
    void aKilledProcessesResponseIsReattachedToByAnotherProcess() {
        takenOver("responses", "killed mid-answer", ServiceProcess::kill, "reattach");
        assertThat(llm.request().get("/simulator/stats").jsonPath().getInt("total.opened"))
                .as("the response was created once, streamed twice").isEqualTo(2);
    }

    @Test
    void anAnswerHandedBackOnSigtermIsContinuedByAnotherProcess() {
        takenOver("openai", "handed back mid-answer", ServiceProcess::terminate, "continue");
    }

    private ServiceProcess llm;
    private ServiceProcess any;

    /** @return the job's id, once completed */
    private String takenOver(String protocol, String question, Consumer<ServiceProcess> stop, String kind) {
        llm = fleet.start("llm", Map.of("fq.worker.enabled", "false", "fq.simulator.answer.words",
                Integer.toString(WORDS), "fq.simulator.answer.token-interval", "10ms"), Map.of());
        Map<String, String> config = new HashMap<>(Map.of("fq.llm.protocol", protocol, "fq.llm.url", llm.url("/simulator"),
                "fq.llm.model", "fenced-queue-simulator", "fq.llm.stream.delta-interval", "100ms"));
        ServiceProcess a = fleet.start("proc-A", config, Map.of());
        fleet.awaitReady(llm, a);
        any = llm; // shares the Redis: any instance answers for any job
        String jobId = a.request().contentType(ContentType.JSON).body(Map.of("query", question))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
        await("A is in the middle of the answer").atMost(Duration.ofSeconds(30))
                .until(() -> status(jobId).getObject("progress.completionTokens", Long.class),
                        tokens -> tokens != null && tokens >= 300);
        assertThat(status(jobId).getString("state")).isEqualTo("active");

        stop.accept(a);
        any = fleet.launch("proc-B", config);
        await("B's run completes the job").atMost(Duration.ofSeconds(90))
                .until(() -> status(jobId).getString("state"), state -> "completed".equals(state) || "failed".equals(state));

        String uninterrupted = SimulatorAnswers.uninterrupted(question, WORDS);
        JsonPath status = status(jobId);
        assertThat(status.getString("state")).isEqualTo("completed");
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted);
        List<Map<String, Object>> valid = any.request().get("/research/valid-history/" + jobId).jsonPath().getList("$");
        StringBuilder kept = new StringBuilder();
        valid.forEach(event -> kept.append(event.getOrDefault("delta", "")));
        assertThat(kept.toString()).as("what a reader keeps").isEqualTo(uninterrupted);
        assertThat(valid).anyMatch(e -> "resume".equals(e.get("event")));
        assertThat(status.getInt("tokens.takeovers." + kind)).isEqualTo(1);
        if (a.isAlive()) {
            a.thaw();
        }
        return jobId;
    }

    private JsonPath status(String jobId) {
        return any.request().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }
}

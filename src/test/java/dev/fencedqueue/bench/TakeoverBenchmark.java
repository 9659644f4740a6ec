package dev.fencedqueue.bench;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a takeover in the middle of a deep-research answer costs, by how the new run goes on (not a test:
 * {@code ./mvnw -Pbench test -Dtest='TakeoverBenchmark*'}; see BENCHMARKS.md). A simulated answer of 2,000 words (tokens)
 * at 10 ms each, a 10-minute answer compressed to 20 s, is run once uninterrupted and once with a takeover at 50% (the
 * worker frozen as by a GC pause, its 1 s lock left to expire, another worker taking the job over), in the same
 * service: completion time and completion tokens billed, and their ratios to the uninterrupted run. One class per
 * mode, each its own service: {@code reattach} (Responses API in background mode), {@code continue} (chat completions,
 * trailing assistant message), {@code restart}. Tokens billed: for chat completions, every attempt's completion tokens
 * (the zombie's included: its call went on until it was cut); for a re-attached background response, the response's
 * own {@code usage} (one response, generated once, whoever read it).
 */
@Tag("benchmark")
abstract class TakeoverBenchmark extends ResearchTestSupport {

    static final int WORDS = 2000;

    /** The service for one mode. */
    abstract static class Profile extends BenchmarkProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(super.getConfigOverrides());
            config.putAll(Map.of("fq.simulator.answer.words", Integer.toString(WORDS),
                    "fq.simulator.answer.token-interval", "10ms", "fq.llm.stream.delta-interval", "250ms",
                    "fq.worker.stalled.max-count", "5"));
            config.putAll(mode());
            return config;
        }

        abstract Map<String, String> mode();
    }

    /** @return the mode's name in the report */
    abstract String mode();

    @Test
    void measuresATakeoverAtHalfTheAnswer() {
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("takeover_environment", Runtime.getRuntime().availableProcessors(), "cpus",
                "\"words\": " + WORDS + ", \"tokenIntervalMs\": 10, \"mode\": \"" + mode() + "\", \"loadAvg1m\": "
                        + BenchContext.loadAverage());
        for (int run = 1; run <= 2; run++) {
            Run plain = run(null);
            Run takenOver = run(0.5);
            String fields = "\"mode\": \"" + mode() + "\"";
            report.record("takeover_" + mode() + "_seconds_uninterrupted", plain.seconds, "s", run, fields);
            report.record("takeover_" + mode() + "_seconds", takenOver.seconds, "s", run, fields);
            report.record("takeover_" + mode() + "_time_ratio", takenOver.seconds / plain.seconds, "ratio", run, fields);
            report.record("takeover_" + mode() + "_tokens_uninterrupted", plain.billed, "tokens", run, fields);
            report.record("takeover_" + mode() + "_tokens", takenOver.billed, "tokens", run, fields);
            report.record("takeover_" + mode() + "_token_ratio", (double) takenOver.billed / plain.billed, "ratio", run,
                    fields);
        }
        report.medians();
    }

    private record Run(double seconds, long billed) {
    }

    /** @param at the share of the answer at which the job is taken over, {@code null} for none */
    private Run run(Double at) {
        Worker first = startResearchWorker("bench-A");
        long start = System.nanoTime();
        String jobId = startJob("What does a takeover cost? (" + mode() + ", " + (at == null ? "uninterrupted" : "taken over")
                + ", " + System.nanoTime() + ")");
        if (at != null) {
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50))
                    .until(() -> status(jobId).getObject("progress.completionTokens", Long.class),
                            tokens -> tokens != null && tokens >= WORDS * at);
            takeOver(first, worker(research, "bench-B"), jobId);
        }
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(50))
                .until(() -> "completed".equals(status(jobId).getString("state")));
        double seconds = (System.nanoTime() - start) / 1e9;
        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isNotBlank();
        long billed = "reattach".equals(mode()) ? status.getLong("result.usage.completionTokens")
                : status.getLong("tokens.result.completionTokens")
                        + (status.get("tokens.zombie") == null ? 0 : status.getLong("tokens.zombie.completionTokens"));
        workers.stopAll();
        given().get("/research/status/" + jobId).then().statusCode(200);
        return new Run(seconds, billed);
    }

    /** Re-attach to the background response (Responses API). */
    @QuarkusTest
    @TestProfile(Reattach.Mode.class)
    @WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
    static class Reattach extends TakeoverBenchmark {
        public static class Mode extends Profile {
            @Override
            Map<String, String> mode() {
                return Map.of("fq.llm.protocol", "responses");
            }
        }

        @Override
        String mode() {
            return "reattach";
        }
    }

    /** Continue with a trailing assistant message (chat completions). */
    @QuarkusTest
    @TestProfile(Continue.Mode.class)
    @WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
    static class Continue extends TakeoverBenchmark {
        public static class Mode extends Profile {
            @Override
            Map<String, String> mode() {
                return Map.of("fq.llm.protocol", "openai", "fq.llm.resume.mode", "continue");
            }
        }

        @Override
        String mode() {
            return "continue";
        }
    }

    /** Start over (chat completions), as before resuming existed. */
    @QuarkusTest
    @TestProfile(Restart.Mode.class)
    @WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
    static class Restart extends TakeoverBenchmark {
        public static class Mode extends Profile {
            @Override
            Map<String, String> mode() {
                return Map.of("fq.llm.protocol", "openai", "fq.llm.resume.mode", "restart");
            }
        }

        @Override
        String mode() {
            return "restart";
        }
    }
}

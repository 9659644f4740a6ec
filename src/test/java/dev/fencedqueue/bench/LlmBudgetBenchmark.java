package dev.fencedqueue.bench;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.fencedqueue.testing.PackagedApplication;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fleet's LLM budget (issue 31; not a test: {@code ./mvnw -Pbench test -Dtest=LlmBudgetBenchmark} after
 * {@code ./mvnw package -DskipTests}, see BENCHMARKS.md). Twenty research jobs at once ({@code bench.jobs}: added to
 * the paused queue, which is then resumed) over two
 * packaged service processes (chat completions, worker concurrency 10 each, so that every job calls at once) against a
 * third process's simulator limited to {@code bench.llm.tokens-per-minute} (4,400) tokens a minute, answers of
 * {@code bench.llm.answer-words} (400) tokens ({@code fq.llm.request.max-tokens} as many, so that the simulator counts what
 * OpenAI counts: the prompt and {@code max_tokens}), one token every 20 ms. Each phase ({@code bench.figures}) on fresh
 * processes and a fresh Redis:
 * <ul>
 * <li>{@code budget}: {@code fq.llm.budget.tokens-per-minute} set to the simulator's limit: the share of calls
 * answered {@code 429} (target at most 1 %), and the tokens the simulator admitted per minute over the steady period
 * (from its first call to its last, the tokens of its full bucket at the start left out) against its limit (target
 * at least 90 %);</li>
 * <li>{@code no-budget}: no {@code fq.llm.budget.*}: the fleet still pauses together on a {@code 429} and learns the
 * limit from the simulator's {@code x-ratelimit-*} headers (the default): {@code 429}s, retries (calls beyond one per
 * job), failed attempts and jobs;</li>
 * <li>{@code no-fleet}: no budget and {@code fq.llm.outage.timeout=0s}: no waiting for the server at all, an
 * attempt fails as its call does (the queue's 3 attempts and exponential back-off from 5 s apply), the closest to the
 * behaviour before issue 31: the same counts;</li>
 * <li>{@code outage}: as {@code budget}, with an outage of 30 s ({@code 503} without a time to wait) started once 14
 * calls were admitted ({@code bench.outage.after-calls}: the middle of the run in time), with the default {@code fq.llm.outage.*} (5 s, doubling up to 1 m): failed jobs
 * (target none), and the time from the simulator's return to the first call it admitted after it and to the first
 * {@code progress} event a job committed after it (its Redis stream entry id: the first tokens as a reader sees
 * them);</li>
 * <li>{@code outage-fast}: the same with {@code fq.llm.outage.probe-max-delay=5s};</li>
 * <li>{@code arriving}: jobs added as users send them, a few a second, answers shorter than their {@code max_tokens}
 * (another shape, {@link ArrivingJobsFigure}).</li>
 * </ul>
 */
@Tag("benchmark")
class LlmBudgetBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 1);
    private static final int JOBS = Integer.getInteger("bench.jobs", 20);
    private static final int TOKENS_PER_MINUTE = Integer.getInteger("bench.llm.tokens-per-minute", 4400);
    private static final int ANSWER_WORDS = Integer.getInteger("bench.llm.answer-words", 400);
    private static final int OUTAGE_SECONDS = 30;
    /** The outage starts once the simulator admitted this many calls: about the middle of the run in time. */
    private static final int OUTAGE_AFTER_CALLS = Integer.getInteger("bench.outage.after-calls", 14);
    private static final Set<String> FIGURES = Set.of(System.getProperty("bench.figures",
            "budget,no-budget,no-fleet,outage,outage-fast,arriving").split(","));
    private static final Path JAR = Path.of(System.getProperty("bench.jar", "target/quarkus-app/quarkus-run.jar"));
    private static final Duration JOBS_END = Duration.ofMinutes(6);

    /**
     * One phase.
     *
     * @param name its name in the figures
     * @param config the service processes' configuration besides the common one
     * @param outage whether an outage of {@link #OUTAGE_SECONDS} starts in the middle of the run
     */
    private record Phase(String name, Map<String, String> config, boolean outage) {
    }

    @Test
    void measuresTheFleetsLlmBudget() {
        assumeTrue(Files.isRegularFile(JAR), "build the jar first: ./mvnw package -DskipTests; missing " + JAR);
        PackagedApplication application = PackagedApplication.jar(JAR);
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("llm_environment", Runtime.getRuntime().availableProcessors(), "cores", "\"jobs\": " + JOBS
                + ", \"tokensPerMinute\": " + TOKENS_PER_MINUTE + ", \"answerWords\": " + ANSWER_WORDS
                + ", \"tokenIntervalMs\": 20, \"runs\": " + RUNS + ", \"loadAvg1m\": " + BenchContext.loadAverage());
        String budget = Integer.toString(TOKENS_PER_MINUTE);
        List<Phase> phases = List.of(
                new Phase("budget", Map.of("fq.llm.budget.tokens-per-minute", budget), false),
                new Phase("no-budget", Map.of(), false),
                new Phase("no-fleet", Map.of("fq.llm.outage.timeout", "0s"), false),
                new Phase("outage", Map.of("fq.llm.budget.tokens-per-minute", budget), true),
                new Phase("outage-fast", Map.of("fq.llm.budget.tokens-per-minute", budget,
                        "fq.llm.outage.probe-max-delay", "5s"), true));
        for (int run = 1; run <= RUNS; run++) {
            for (Phase phase : phases) {
                if (FIGURES.contains(phase.name())) {
                    measure(report, application, phase, run);
                }
            }
            if (FIGURES.contains("arriving")) {
                ArrivingJobsFigure.measure(report, application, run);
            }
        }
        describe(report);
        ArrivingJobsFigure.describe(report);
        report.medians();
    }

    private void measure(BenchReport report, PackagedApplication application, Phase phase, int run) {
        Map<String, String> instance = new HashMap<>(Map.of("fq.llm.protocol", "openai",
                "fq.llm.model", "fenced-queue-simulator", "fq.llm.request.max-tokens", Integer.toString(ANSWER_WORDS),
                "fq.worker.concurrency", "10"));
        instance.putAll(phase.config());
        Map<String, String> simulator = Map.of("fq.simulator.provider.tokens-per-minute", Integer.toString(TOKENS_PER_MINUTE),
                "fq.simulator.answer.words", Integer.toString(ANSWER_WORDS), "fq.simulator.answer.token-interval", "20ms");
        String prefix = "llm_" + phase.name().replace('-', '_') + "_";
        String fields = "\"phase\": \"" + phase.name() + "\", \"config\": \"" + phase.config() + "\", \"loadAvg1m\": "
                + BenchContext.loadAverage();
        try (LlmFleet fleet = new LlmFleet(application, phase.name() + "-run" + run, simulator, instance);
                ProviderSampler provider = new ProviderSampler(fleet.llm().url("/simulator/provider"),
                        Duration.ofMillis(100))) {
            List<String> jobs = fleet.startJobs(JOBS, phase.name());
            long started = System.currentTimeMillis();
            long outageEnd = phase.outage() ? outageInTheMiddle(fleet, provider) : 0;
            List<JsonPath> statuses = fleet.awaitEnded(jobs, JOBS_END);
            long ended = System.currentTimeMillis();
            ProviderSampler.Sample last = provider.after(ended); // every call counted

            long completed = statuses.stream().filter(s -> "completed".equals(s.getString("state"))).count();
            long attempts = statuses.stream().mapToLong(s -> s.getLong("attemptsMade")).sum();
            long tokens = statuses.stream().mapToLong(LlmBudgetBenchmark::tokensSpent).sum();
            double tokensPerCall = last.admitted() == 0 ? Double.NaN : (double) tokens / last.admitted();
            report.record(prefix + "calls", last.calls(), "calls", run, fields);
            report.record(prefix + "429s", last.rateLimited(), "calls", run, fields);
            report.record(prefix + "429_share", 100.0 * last.rateLimited() / Math.max(1, last.calls()), "%", run,
                    fields);
            report.record(prefix + "retries", last.calls() - JOBS, "calls", run, "\"what\": \"calls beyond one per "
                    + "job\", \"refusedServer\": " + fleet.rateLimited("server") + ", \"foundDown\": "
                    + fleet.rateLimited("down"));
            report.record(prefix + "held_back", fleet.rateLimited("tokens") + fleet.rateLimited("requests")
                    + fleet.rateLimited("paused") + fleet.rateLimited("open") + fleet.rateLimited("concurrency"),
                    "times", run, "\"what\": \"calls the budget held back before they started (their jobs waited)\", "
                            + "\"paused\": " + fleet.rateLimited("paused") + ", \"open\": " + fleet.rateLimited("open"));
            report.record(prefix + "failed_attempts", attempts - completed, "attempts", run, fields);
            report.record(prefix + "failed_jobs", JOBS - completed, "jobs", run, fields);
            report.record(prefix + "seconds", (ended - started) / 1000.0, "s", run, "\"what\": \"from the jobs' start "
                    + "(the queue resumed) to every job ended (polled every second)\"");
            report.line(prefix + "admissions", "\"run\": " + run + ", \"secondsAfterTheFirst\": "
                    + secondsAfterTheFirst(provider.admissions()) + ", \"unusedTokensAtTheLastCall\": "
                    + unusedAtTheLastCall(provider) + (phase.outage() ? ", \"outageEndsAfterTheFirst\": "
                    + BenchReport.number((outageEnd - provider.admissions().get(0)) / 1000.0) : ""));
            if (!phase.outage()) {
                double perMinute = steadyTokensPerMinute(provider.admissions(), tokensPerCall);
                report.record(prefix + "tokens_per_minute", perMinute, "tokens/min", run, "\"tokensPerCall\": "
                        + BenchReport.number(tokensPerCall) + ", \"ceiling\": " + TOKENS_PER_MINUTE);
                report.record(prefix + "delivered_share", 100.0 * perMinute / TOKENS_PER_MINUTE, "%", run, fields);

            } else {
                report.record(prefix + "outage_failed_calls", last.failed(), "calls", run, fields);
                report.record(prefix + "return_to_first_call", firstAdmissionAfter(provider, outageEnd) / 1000.0, "s",
                        run, "\"what\": \"from the outage's end to the first call the simulator admitted after it "
                                + "(read every 100 ms)\"");
                report.record(prefix + "return_to_first_token", firstProgressAfter(fleet, jobs, outageEnd) / 1000.0,
                        "s", run, "\"what\": \"from the outage's end to the first progress event a job committed after "
                                + "it (its stream entry id)\"");
            }
        }
    }

    /**
     * Starts the outage once {@link #OUTAGE_AFTER_CALLS} calls were admitted.
     *
     * @return when the simulator says it ends, ms since the epoch
     */
    private static long outageInTheMiddle(LlmFleet fleet, ProviderSampler provider) {
        await("the middle of the run").atMost(JOBS_END).pollInterval(Duration.ofMillis(20))
                .until(() -> provider.last().admitted() >= OUTAGE_AFTER_CALLS);
        String until = fleet.llm().request().contentType(ContentType.JSON)
                .body(Map.of("seconds", OUTAGE_SECONDS, "kind", "unavailable")).put("/simulator/provider/outage")
                .then().statusCode(200).extract().path("outageUntil");
        return Instant.parse(until).toEpochMilli();
    }

    /**
     * The tokens the simulator admitted per minute over the steady period, from its first admitted call to its last:
     * the tokens of every call but those of its full bucket at the start (a minute's worth, admitted at once), over
     * that time. A fleet that starts each call as soon as the limit admits it leaves the bucket empty after its last
     * call and delivers the limit; every moment a call could have started and did not is lost for good.
     *
     * @param admissions when each call was admitted, ms, in order
     * @param tokensPerCall tokens each call was counted for (prompt and {@code max_tokens})
     * @return tokens per minute, {@code NaN} when the calls did not outlast the bucket's first minute
     */
    static double steadyTokensPerMinute(List<Long> admissions, double tokensPerCall) {
        return steadyTokensPerMinute(admissions, tokensPerCall, TOKENS_PER_MINUTE);
    }

    /**
     * {@link #steadyTokensPerMinute(List, double)} against a limit of {@code limit} tokens a minute (its full bucket at
     * the start left out).
     */
    static double steadyTokensPerMinute(List<Long> admissions, double tokensPerCall, long limit) {
        if (admissions.size() < 2) {
            return Double.NaN;
        }
        double minutes = (admissions.get(admissions.size() - 1) - admissions.get(0)) / 60_000.0;
        double beyondTheBucket = admissions.size() * tokensPerCall - limit;
        return beyondTheBucket <= 0 ? Double.NaN : beyondTheBucket / minutes;
    }

    /** @return when each call was admitted, s after the first, as a JSON array */
    private static String secondsAfterTheFirst(List<Long> admissions) {
        return admissions.stream().map(at -> BenchReport.number((at - admissions.get(0)) / 1000.0)).toList().toString();
    }

    /** @return the tokens the simulator's limit still admitted at the first reading that counted the last call */
    private static long unusedAtTheLastCall(ProviderSampler provider) {
        long calls = provider.last().admitted();
        return provider.samples().stream().filter(sample -> sample.admitted() == calls).findFirst()
                .map(ProviderSampler.Sample::remainingTokens).orElse(-1L);
    }

    /** @return ms from {@code end} to the first reading after it with more calls admitted than at {@code end} */
    private static double firstAdmissionAfter(ProviderSampler provider, long end) {
        long before = -1;
        for (ProviderSampler.Sample sample : provider.samples()) {
            if (sample.atMillis() <= end) {
                before = sample.admitted();
            } else if (sample.admitted() > before) {
                return sample.atMillis() - end;
            }
        }
        return Double.NaN;
    }

    /** @return ms from {@code end} to the first {@code progress} event of any job stored after it */
    private static double firstProgressAfter(LlmFleet fleet, List<String> jobs, long end) {
        long first = Long.MAX_VALUE;
        for (String jobId : jobs) {
            JsonPath history = fleet.history(jobId);
            List<String> ids = history.getList("id");
            List<String> types = history.getList("event");
            for (int i = 0; i < ids.size(); i++) {
                long at = Long.parseLong(ids.get(i).substring(0, ids.get(i).indexOf('-')));
                if ("progress".equals(types.get(i)) && at >= end) {
                    first = Math.min(first, at);
                }
            }
        }
        return first == Long.MAX_VALUE ? Double.NaN : first - end;
    }

    /** @return the prompt and completion tokens the job's attempts spent, whatever their outcome */
    private static long tokensSpent(JsonPath status) {
        Map<String, Object> tokens = status.getMap("tokens");
        long sum = 0;
        if (tokens != null) {
            for (Map.Entry<String, Object> outcome : tokens.entrySet()) {
                // "saved" counts committed tokens a takeover did not generate again: not spent
                if (!"saved".equals(outcome.getKey()) && outcome.getValue() instanceof Map<?, ?> counts) {
                    for (String field : List.of("promptTokens", "completionTokens")) {
                        if (counts.get(field) instanceof Number number) {
                            sum += number.longValue();
                        }
                    }
                }
            }
        }
        return sum;
    }

    private static void describe(BenchReport report) {
        report.describe("llm_budget_429_share", "\"target\": \"at most 1 %\"");
        report.describe("llm_budget_delivered_share", "\"target\": \"at least 90 % of the simulator's limit\"");
        report.describe("llm_budget_tokens_per_minute", "\"ceiling\": " + TOKENS_PER_MINUTE);
        report.describe("llm_outage_failed_jobs", "\"target\": 0");
        report.describe("llm_outage_fast_failed_jobs", "\"target\": 0");
    }
}

package dev.fencedqueue.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.fencedqueue.testing.PackagedApplication;
import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.path.json.JsonPath;

/**
 * {@link LlmBudgetBenchmark}'s phase {@code arriving} (issue 53): jobs added as users send them rather than to a paused
 * queue. Twelve research jobs ({@code bench.arriving.jobs}) added one at a time over about a second, by turns through
 * two packaged service processes (chat completions, worker concurrency 10 each,
 * {@code fq.llm.budget.tokens-per-minute} equal to the simulator's limit, {@code fq.llm.request.max-tokens=400}) against a
 * third process's simulator limited to 1,500 tokens and 600 requests a minute, answering about 300 words, a token
 * every 5 ms: so each call uses fewer tokens than the {@code max_tokens} the simulator counts, as OpenAI counts them.
 * Its figures: the calls the simulator refused ({@code 429}), and when (s after its first admitted call, whose headers
 * the budget read by then), the fleet's pauses that followed and how long each was, the tokens the simulator admitted
 * a minute (each call's prompt, as the jobs report it, and its {@code max_tokens}) beside its limit read from it in the
 * same run, failed attempts and jobs.
 */
final class ArrivingJobsFigure {

    private static final int JOBS = Integer.getInteger("bench.arriving.jobs", 12);
    private static final int TOKENS_PER_MINUTE = 1500;
    private static final int REQUESTS_PER_MINUTE = 600;
    private static final int MAX_TOKENS = 400;
    private static final int ANSWER_WORDS = 300;
    private static final Duration ARRIVALS = Duration.ofSeconds(1);
    private static final Duration JOBS_END = Duration.ofMinutes(8);
    /** What the service logs when a {@code 429} paused the fleet ({@code LlmBudgetGate}). */
    private static final Pattern PAUSE = Pattern.compile("asked to wait: the fleet waits for it; the job waits (\\d+) ms");

    private ArrivingJobsFigure() {
    }

    /** Measures one run of the phase on fresh processes and a fresh Redis. */
    static void measure(BenchReport report, PackagedApplication application, int run) {
        Map<String, String> simulator = Map.of("fq.simulator.provider.tokens-per-minute", Integer.toString(TOKENS_PER_MINUTE),
                "fq.simulator.provider.requests-per-minute", Integer.toString(REQUESTS_PER_MINUTE),
                "fq.simulator.answer.words", Integer.toString(ANSWER_WORDS), "fq.simulator.answer.token-interval", "5ms");
        Map<String, String> instance = Map.of("fq.llm.protocol", "openai", "fq.llm.model", "fenced-queue-simulator",
                "fq.llm.request.max-tokens", Integer.toString(MAX_TOKENS), "fq.worker.concurrency", "10",
                "fq.llm.budget.tokens-per-minute", Integer.toString(TOKENS_PER_MINUTE));
        String fields = "\"phase\": \"arriving\", \"jobs\": " + JOBS + ", \"loadAvg1m\": " + BenchContext.loadAverage();
        try (LlmFleet fleet = new LlmFleet(application, "arriving-run" + run, simulator, instance);
                ProviderSampler provider = new ProviderSampler(fleet.llm().url("/simulator/provider"),
                        Duration.ofMillis(100))) {
            long ceiling = fleet.llm().request().get("/simulator/provider").then().statusCode(200).extract()
                    .jsonPath().getLong("tokensPerMinute");
            if (Boolean.getBoolean("bench.arriving.trace")) {
                provider.onSample(sample -> System.out.printf("TRACE %d admitted=%d refused=%d provider=%d budget=%d%n",
                        sample.atMillis(), sample.admitted(), sample.rateLimited(), sample.remainingTokens(),
                        fleet.budgetTokensLeft()));
            }
            long started = System.currentTimeMillis();
            List<String> jobs = fleet.addAsTheyCome(JOBS, ARRIVALS, "arriving");
            List<JsonPath> statuses = fleet.awaitEnded(jobs, JOBS_END);
            long ended = System.currentTimeMillis();
            ProviderSampler.Sample last = provider.after(ended);

            long completed = statuses.stream().filter(s -> "completed".equals(s.getString("state"))).count();
            long attempts = statuses.stream().mapToLong(s -> s.getLong("attemptsMade")).sum();
            long prompts = statuses.stream().mapToLong(s -> s.getLong("tokens.result.promptTokens")).sum();
            double charged = completed == 0 ? Double.NaN : (double) prompts / completed + MAX_TOKENS;
            List<Long> admissions = provider.admissions();
            long first = admissions.isEmpty() ? Long.MAX_VALUE : admissions.get(0);
            List<Long> refusals = provider.refusals();
            long refusedLater = refusals.stream().filter(at -> at > first).count();
            List<Long> pauses = pauses(fleet.instances());

            report.record("llm_arriving_calls", last.calls(), "calls", run, fields);
            report.record("llm_arriving_429s", last.rateLimited(), "calls", run, fields + ", \"secondsAfterTheFirst\": "
                    + secondsAfter(refusals, first));
            report.record("llm_arriving_429s_after_headers", refusedLater, "calls", run, "\"what\": \"429s read after "
                    + "the first reading that counted an admitted call (its headers read by then)\"");
            report.record("llm_arriving_fleet_pauses", fleet.rateLimited("server"), "pauses", run, "\"waitsMs\": "
                    + pauses);
            report.record("llm_arriving_held_back", fleet.rateLimited("tokens") + fleet.rateLimited("requests")
                    + fleet.rateLimited("paused") + fleet.rateLimited("line"), "times", run, "\"paused\": "
                    + BenchReport.number(fleet.rateLimited("paused")));
            report.record("llm_arriving_failed_attempts", attempts - completed, "attempts", run, fields);
            report.record("llm_arriving_failed_jobs", JOBS - completed, "jobs", run, fields);
            double perMinute = LlmBudgetBenchmark.steadyTokensPerMinute(admissions, charged, ceiling);
            report.record("llm_arriving_tokens_per_minute", perMinute, "tokens/min", run, "\"tokensPerCall\": "
                    + BenchReport.number(charged) + ", \"ceiling\": " + ceiling);
            report.record("llm_arriving_delivered_share", 100.0 * perMinute / ceiling, "%", run, fields);
            report.record("llm_arriving_seconds", (ended - started) / 1000.0, "s", run, "\"what\": \"from the first "
                    + "job added to every job ended (polled every second)\"");
            report.line("llm_arriving_admissions", "\"run\": " + run + ", \"secondsAfterTheFirst\": "
                    + secondsAfter(admissions, first));
        }
    }

    /** @return the waits of the fleet's pauses after a {@code 429}, as both instances logged them, ms */
    private static List<Long> pauses(List<ServiceProcess> instances) {
        List<Long> waits = new ArrayList<>();
        for (ServiceProcess instance : instances) {
            Matcher pause = PAUSE.matcher(instance.log());
            while (pause.find()) {
                waits.add(Long.parseLong(pause.group(1)));
            }
        }
        return waits;
    }

    /** @return each time, s after {@code first}, as a JSON array */
    private static String secondsAfter(List<Long> times, long first) {
        return times.stream().map(at -> BenchReport.number((at - first) / 1000.0)).toList().toString();
    }

    static void describe(BenchReport report) {
        report.describe("llm_arriving_429s_after_headers", "\"target\": 0");
        report.describe("llm_arriving_tokens_per_minute", "\"ceiling\": " + TOKENS_PER_MINUTE);
    }
}

package dev.fencedqueue.docs;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import dev.fencedqueue.testing.Timeouts;
import io.quarkus.test.common.http.TestHTTPResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the {@code curl} commands of README.md and docs/ as written, in the order a reader meets them, against the
 * application the test started, and checks each one's HTTP status and the shape of what it printed against the
 * comment lines the documentation shows under it: the JSON field names it shows, the SSE events in order, the metric
 * names. What a command needs to run comes from the commands before it: an id the documentation elides
 * ({@code "jobId":"research-6f1c..."}) stands for what the real command printed there, {@code <jobId>} and
 * {@code $JOB} for the last job id printed, {@code <last id>} for the last SSE id; {@code localhost:<port>} is the
 * test's application. A block whose first comment says {@code # with fq.x=y} runs only where the application has
 * that setting: each subclass runs the blocks its application's settings satisfy, and every block must be satisfied
 * by one of {@link #RUNNERS}.
 */
abstract class DocumentedCommandsRunner {

    /** The settings of each subclass's application, beyond the test defaults: every block must fit one of them. */
    static final List<Map<String, String>> RUNNERS = List.of(Map.of(), Map.of("fq.tenancy.source", "header"),
            PricedDocumentedCommandsTest.SETTINGS);

    /** Programs the documentation shows that this test does not run, and where they are run instead. */
    static final Map<String, String> RUN_ELSEWHERE = Map.of(
            "./mvnw", "the build itself: CI runs `./mvnw verify` (README) and the Valkey, AOT and native stages (docs/testing.md)",
            "java", "a packaged instance: ZombieProcessIT and TracingProcessIT start the jar as docs/guide.md does",
            "export", "an environment setting of the two-instance recipe, which ZombieProcessIT automates",
            "kill", "ZombieProcessIT stops and continues an instance (SIGSTOP, SIGCONT) as docs/guide.md does",
            "promtool", "MonitoringFilesTest runs `promtool check rules` and `promtool test rules` on monitoring/",
            "kubectl", "KubernetesManifestIT validates target/kubernetes/kubernetes.yml against the Kubernetes schemas",
            "", "environment settings only");

    /** Documented output keys that only appear with a setting the runners do not have, and the test that shows them. */
    static final Map<String, String> KEYS_ELSEWHERE = Map.of(
            "traceId", "quarkus.otel.sdk.disabled=false: TracingTest reads a job's traceId from its status");

    private static final Pattern ELIDED = Pattern.compile("\"([A-Za-z_][A-Za-z0-9_]*)\"\\s*:\\s*\"([^\"]+\\.\\.\\.)\"");
    private static final Pattern SERVICE = Pattern.compile("(https?://)?(localhost|127\\.0\\.0\\.1):\\d+");
    private static final Pattern SETTINGS = Pattern.compile("with ((?:fq|quarkus)\\.[a-z0-9.-]+=[^\\s,]+(?:,\\s*(?:fq|quarkus)\\.[a-z0-9.-]+=[^\\s,]+)*)");
    private static final Pattern METRIC = Pattern.compile("^([a-z_]+)\\{");
    private static final Pattern STATUS = Pattern.compile("^(\\d{3})\\b.*");
    private static final Pattern STREAMED_JOB = Pattern.compile("/stream/([^/\\s?]+)");

    @TestHTTPResource("/")
    URL base;

    @TempDir
    Path bin;

    /**
     * @return the settings this class's application runs with (its {@code @RuntimeProfile}'s), of those a block may ask
     *         for: the blocks that ask for exactly these run here
     */
    abstract Map<String, String> settings();

    @Test
    void everyCurlCommandOfTheDocumentationRunsAsWritten() throws Exception {
        Optional<Path> curl = onPath("curl");
        assumeTrue(curl.isPresent() || "required".equals(System.getenv("FQ_DOC_COMMANDS")),
                "curl is not installed: the documentation's commands are not run (Debian: apt-get install curl jq)");
        assertThat(curl).as("FQ_DOC_COMMANDS=required, but curl is missing").isPresent();
        CommandRun.installCurlWrapper(bin, curl.get());
        Bindings bindings = new Bindings();
        List<String> failures = new ArrayList<>();
        int ran = 0;
        for (DocumentedCommand command : documentedCommands()) {
            if (!command.program().equals("curl") || !settings().equals(blockSettings(command))) {
                continue;
            }
            ran++;
            String runnable = bindings.apply(SERVICE.matcher(command.text())
                    .replaceAll("http://127.0.0.1:" + base.getPort())).replaceAll("\\s*&\\s*$", "");
            CommandRun run = CommandRun.of(runnable, bin, bindings.environment());
            failures.addAll(check(command, run));
            bindings.learn(command, runnable, run);
        }
        assertThat(ran).as("commands run by this runner").isPositive();
        assertThat(failures).as("documented commands that did not run as written").isEmpty();
        everyJobEndsAndNoneFails(bindings.jobIds);
    }

    /**
     * Every job the commands added ends, none of them {@code failed}: a job added to a queue that nothing serves, or
     * with data its processor cannot run, would wait forever or fail, although its command answered {@code 2xx}.
     */
    private static void everyJobEndsAndNoneFails(Set<String> jobIds) {
        List<String> queues = given().auth().preemptive().basic("admin", "admin").get("/admin/queues")
                .then().statusCode(200).extract().jsonPath().getList("queue", String.class);
        Map<String, String> states = new TreeMap<>();
        await("every job the documented commands added ends").atMost(Timeouts.FAN_OUT_END).untilAsserted(() -> {
            for (String jobId : jobIds) {
                states.put(jobId, stateOf(queues, jobId));
            }
            assertThat(states).as("the jobs the documented commands added, by state (queues: %s)", queues)
                    .allSatisfy((jobId, state) -> assertThat(state).matches("(completed|aborted)( \\(.*\\))?"));
        });
    }

    /** @return the state of a job in whichever of the queues holds it, {@code "not found"} when none does */
    private static String stateOf(List<String> queues, String jobId) {
        for (String queue : queues) {
            io.restassured.response.Response job = given().auth().preemptive().basic("admin", "admin")
                    .get("/admin/queues/{queue}/jobs/{jobId}", queue, jobId);
            if (job.statusCode() == 200) {
                return job.jsonPath().getString("state") + (job.jsonPath().getString("failedReason") == null ? ""
                        : " (" + job.jsonPath().getString("failedReason") + ")");
            }
        }
        return "not found in any queue";
    }

    /** @return what went wrong with one command's run, empty when it ran as documented */
    private static List<String> check(DocumentedCommand command, CommandRun run) {
        List<String> failures = new ArrayList<>();
        List<String> output = command.output();
        Matcher documentedStatus = output.isEmpty() ? null : STATUS.matcher(output.get(0));
        boolean statusShown = documentedStatus != null && documentedStatus.matches();
        boolean statusOk = statusShown ? run.status() == Integer.parseInt(documentedStatus.group(1))
                : run.status() >= 200 && run.status() < 300;
        String context = command + "\n    -> HTTP " + run.status() + ", exit " + run.exitCode() + ": "
                + abbreviate(run.stdout()) + (run.stderr().isBlank() ? "" : " / " + abbreviate(run.stderr()));
        if (!statusOk || run.exitCode() != 0) {
            failures.add(context + "\n    expected " + (statusShown ? "HTTP " + documentedStatus.group(1) : "a 2xx")
                    + " and exit 0");
            return failures;
        }
        Set<String> actual = run.fieldNames();
        List<String> missing = CommandRun.documentedFieldNames(output).stream()
                .filter(name -> !actual.contains(name) && !KEYS_ELSEWHERE.containsKey(name)).toList();
        if (!missing.isEmpty()) {
            failures.add(context + "\n    the documentation shows fields it did not print: " + missing);
        }
        List<String> events = CommandRun.sseEvents(output);
        if (!isSubsequence(events, run.sseEvents())) {
            failures.add(context + "\n    the documentation shows the events " + events + " in this order, it sent "
                    + run.sseEvents());
        }
        for (String line : output) {
            Matcher metric = METRIC.matcher(line);
            if (metric.find() && !run.stdout().contains(metric.group(1) + "{")) {
                failures.add(context + "\n    the documentation shows the metric " + metric.group(1));
            }
        }
        return failures;
    }

    /** @return the settings a command's block asks for ({@code # with fq.llm.protocol=openai}), none by default */
    static Map<String, String> blockSettings(DocumentedCommand command) {
        Map<String, String> settings = new HashMap<>();
        Matcher matcher = SETTINGS.matcher(command.blockComment());
        if (matcher.find()) {
            for (String pair : matcher.group(1).split(",\\s*")) {
                settings.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
            }
        }
        return settings;
    }

    /** @return the commands of README.md, then of docs/*.md by name */
    static List<DocumentedCommand> documentedCommands() throws IOException {
        Path project = Path.of(System.getProperty("user.dir"));
        List<Path> pages = new ArrayList<>(List.of(project.resolve("README.md")));
        try (Stream<Path> docs = Files.list(project.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted(Comparator.naturalOrder()).forEach(pages::add);
        }
        List<DocumentedCommand> commands = new ArrayList<>();
        for (Path page : pages) {
            commands.addAll(MarkdownCommands.of(project.relativize(page).toString(), Files.readString(page)));
        }
        return commands;
    }

    private static boolean isSubsequence(List<String> wanted, List<String> actual) {
        int next = 0;
        for (String item : actual) {
            if (next < wanted.size() && wanted.get(next).equals(item)) {
                next++;
            }
        }
        return next == wanted.size();
    }

    private static Optional<Path> onPath(String program) {
        return Stream.of(System.getenv("PATH").split(":")).map(dir -> Path.of(dir, program))
                .filter(Files::isExecutable).findFirst();
    }

    private static String abbreviate(String text) {
        String flat = text.strip().replace('\n', ' ');
        return flat.length() <= 400 ? flat : flat.substring(0, 400) + "...";
    }

    /** What the commands run so far printed that later commands stand for with a placeholder. */
    private static final class Bindings {
        private final Map<String, String> values = new LinkedHashMap<>();
        private final Set<String> jobIds = new LinkedHashSet<>();
        private String lastJobId;
        private String lastSseId;
        private String lastSseJobId;

        String apply(String command) {
            String result = command;
            List<String> placeholders = new ArrayList<>(values.keySet());
            placeholders.sort(Comparator.comparingInt(String::length).reversed());
            for (String placeholder : placeholders) {
                result = result.replace(placeholder, values.get(placeholder));
            }
            if (lastSseId != null && result.contains("<last id>")) {
                result = result.replace("<last id>", lastSseId).replace("<jobId>", lastSseJobId);
            }
            if (lastJobId != null) {
                result = result.replace("<jobId>", lastJobId);
            }
            return result;
        }

        Map<String, String> environment() {
            return lastJobId == null ? Map.of() : Map.of("JOB", lastJobId);
        }

        /**
         * @param command the command as documented
         * @param ran the command as run (placeholders replaced)
         * @param run what it did
         */
        void learn(DocumentedCommand command, String ran, CommandRun run) {
            JsonNode json = run.json();
            if (json != null) {
                for (String line : command.output()) {
                    Matcher elided = ELIDED.matcher(line);
                    while (elided.find()) {
                        JsonNode value = json.findValue(elided.group(1));
                        if (value != null && value.isTextual() && !values.containsKey(elided.group(2))) {
                            values.put(elided.group(2), value.asText());
                        }
                    }
                }
                if (json.path("jobId").isTextual()) {
                    lastJobId = json.path("jobId").asText();
                }
                json.findValues("jobId").stream().filter(JsonNode::isTextual).map(JsonNode::asText).forEach(jobIds::add);
            }
            if (run.lastSseId() != null) {
                lastSseId = run.lastSseId();
                Matcher streamed = STREAMED_JOB.matcher(ran);
                lastSseJobId = streamed.find() ? streamed.group(1) : lastJobId;
            }
        }
    }
}

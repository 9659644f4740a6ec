package dev.fencedqueue.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What a documented command did when it ran in {@code bash}: its standard output, and the HTTP status its
 * {@code curl} got (the {@code curl} on the {@code PATH} of the run is a wrapper that writes the status to standard
 * error, so pipes such as {@code | jq .tokens} still see only the body).
 *
 * @param stdout what it printed
 * @param stderr what it printed on standard error, the status line removed
 * @param status the HTTP status of its request, 0 when none was made
 * @param exitCode the shell's exit code
 */
record CommandRun(String stdout, String stderr, int status, int exitCode) {

    private static final String STATUS_LINE = "fq-http-status:";
    private static final Pattern STATUS = Pattern.compile(STATUS_LINE + "(\\d{3})");
    private static final Pattern JSON_KEY = Pattern.compile("\"([A-Za-z_][A-Za-z0-9_]*)\"\\s*:");
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Writes the {@code curl} wrapper into {@code bin}.
     *
     * @param bin a directory to put first on the {@code PATH} of the runs
     * @param curl the real {@code curl}
     * @throws IOException when the wrapper cannot be written
     */
    static void installCurlWrapper(Path bin, Path curl) throws IOException {
        Path wrapper = bin.resolve("curl");
        Files.writeString(wrapper, "#!/bin/sh\nexec '" + curl + "' --max-time 120 --write-out '%{stderr}\\n"
                + STATUS_LINE + "%{http_code}\\n' \"$@\"\n");
        wrapper.toFile().setExecutable(true);
    }

    /**
     * Runs a command in {@code bash -c} and waits for it (at most 3 minutes).
     *
     * @param command the command
     * @param bin the directory of the {@code curl} wrapper, put first on the {@code PATH}
     * @param env more environment variables
     * @return what it did
     * @throws Exception when it cannot be started or does not end in time
     */
    static CommandRun of(String command, Path bin, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", command);
        builder.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        builder.environment().putAll(env);
        Path out = Files.createTempFile("fq-doc-command", ".out");
        Path err = Files.createTempFile("fq-doc-command", ".err");
        builder.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = builder.start();
        try {
            if (!process.waitFor(3, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the command did not end within 3 minutes: " + command);
            }
            String stderr = Files.readString(err, StandardCharsets.UTF_8);
            Matcher status = STATUS.matcher(stderr);
            int code = 0;
            while (status.find()) {
                code = Integer.parseInt(status.group(1));
            }
            return new CommandRun(Files.readString(out, StandardCharsets.UTF_8),
                    stderr.replaceAll("\\n?" + STATUS_LINE + "\\d{3}\\n?", "").strip(), code, process.exitValue());
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** @return the output parsed as JSON, or {@code null} when it is not JSON */
    JsonNode json() {
        try {
            return stdout.isBlank() ? null : JSON.readTree(stdout);
        } catch (IOException e) {
            return null;
        }
    }

    /** @return the {@code event:} names of an SSE output, in order */
    List<String> sseEvents() {
        return sseEvents(List.of(stdout.split("\n")));
    }

    /** @return the last {@code id:} of an SSE output, or {@code null} */
    String lastSseId() {
        String last = null;
        for (String line : stdout.split("\n")) {
            if (line.startsWith("id:")) {
                last = line.substring(3).trim();
            }
        }
        return last;
    }

    /** @return every field name of the JSON output (at any depth) and of the SSE output's {@code data:} lines */
    Set<String> fieldNames() {
        Set<String> names = new LinkedHashSet<>();
        JsonNode json = json();
        if (json != null) {
            collect(json, names);
        }
        for (String line : stdout.split("\n")) {
            if (line.startsWith("data:")) {
                try {
                    collect(JSON.readTree(line.substring(5)), names);
                } catch (IOException e) {
                    // not JSON: no names
                }
            }
        }
        return names;
    }

    /** @return the {@code event:} names in documented or actual SSE lines, in order */
    static List<String> sseEvents(List<String> lines) {
        List<String> events = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("event:")) {
                events.add(line.substring(6).trim());
            }
        }
        return events;
    }

    /** @return the JSON field names a documented output shows (it may elide parts with {@code ...}) */
    static Set<String> documentedFieldNames(List<String> lines) {
        Set<String> names = new LinkedHashSet<>();
        for (String line : lines) {
            Matcher key = JSON_KEY.matcher(line);
            while (key.find()) {
                names.add(key.group(1));
            }
        }
        return names;
    }

    private static void collect(JsonNode node, Set<String> names) {
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                names.add(field.getKey());
                collect(field.getValue(), names);
            }
        } else if (node.isArray()) {
            node.forEach(element -> collect(element, names));
        }
    }
}

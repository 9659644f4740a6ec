package dev.fencedqueue.bench;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Redis's {@code INFO commandstats} of one processing phase (reset with {@code CONFIG RESETSTAT} just
 * before it), read per job. Redis 7 counts a command called inside a script both under its own name and
 * within the script's time: {@code evalsha}'s µs include those of the commands its scripts called.
 *
 * @param calls calls per command (lower-case name, e.g. {@code evalsha}, {@code xadd})
 * @param micros time Redis spent in each command, µs
 */
record CommandStats(Map<String, Long> calls, Map<String, Long> micros) {

    private static final Pattern LINE = Pattern.compile("cmdstat_([^:]+):calls=(\\d+),usec=(\\d+)");

    /**
     * @param info the text of {@code INFO commandstats}
     * @return its calls and times per command
     */
    static CommandStats parse(String info) {
        Map<String, Long> calls = new LinkedHashMap<>();
        Map<String, Long> micros = new LinkedHashMap<>();
        Matcher matcher = LINE.matcher(info);
        while (matcher.find()) {
            calls.put(matcher.group(1), Long.parseLong(matcher.group(2)));
            micros.put(matcher.group(1), Long.parseLong(matcher.group(3)));
        }
        return new CommandStats(calls, micros);
    }

    /**
     * @param jobs the jobs of the phase
     * @return JSON fields: {@code "scriptCallsPerJob"} ({@code evalsha} + {@code eval}), {@code "scriptUsPerJob"}
     *         (their time, the commands inside included), {@code "otherUsPerJob"} (every other command: those
     *         called inside scripts and those sent directly), and {@code "perJob"}, each command's calls and µs
     *         per job, most expensive first (the benchmark's own {@code info} and {@code config} left out)
     */
    String perJobFields(int jobs) {
        long scriptCalls = calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
        long scriptMicros = micros.getOrDefault("evalsha", 0L) + micros.getOrDefault("eval", 0L);
        long otherMicros = micros.entrySet().stream().filter(e -> !isScript(e.getKey()) && !isOwn(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
        String perJob = micros.entrySet().stream().filter(e -> !isOwn(e.getKey()))
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                .map(e -> "\"" + e.getKey() + "\": {\"calls\": " + format((double) calls.get(e.getKey()) / jobs)
                        + ", \"us\": " + format((double) e.getValue() / jobs) + "}")
                .collect(Collectors.joining(", "));
        return "\"jobs\": " + jobs + ", \"scriptCallsPerJob\": " + format((double) scriptCalls / jobs)
                + ", \"scriptUsPerJob\": " + format((double) scriptMicros / jobs) + ", \"otherUsPerJob\": "
                + format((double) otherMicros / jobs) + ", \"perJob\": {" + perJob + "}";
    }

    /**
     * @param jobs the jobs of the phase
     * @return the Redis commands per job, those scripts called and those sent directly (scripts themselves and the
     *         benchmark's own readings left out): a count that does not move with the machine's load, where times do
     */
    double commandsPerJob(int jobs) {
        return (double) calls.entrySet().stream().filter(e -> !isScript(e.getKey()) && !isOwn(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum() / jobs;
    }

    private static boolean isScript(String command) {
        return command.equals("evalsha") || command.equals("eval");
    }

    /** The benchmark's own readings ({@code INFO cpu}, {@code CONFIG RESETSTAT}), not the queue's work. */
    private static boolean isOwn(String command) {
        return command.equals("info") || command.startsWith("config");
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }
}

package dev.fencedqueue.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Collects the benchmark's figures: prints each measurement as one JSON line on stdout and appends it to
 * {@code target/benchmarks.jsonl}, then a median line per figure. Not thread-safe: used from the test
 * thread only.
 */
final class BenchReport {

    /** Where the JSON lines are appended, relative to the module directory. */
    static final Path FILE = Path.of("target", "benchmarks.jsonl");

    private final String startedAt;
    private final Map<String, List<Double>> runs = new LinkedHashMap<>();
    private final Map<String, Double> colds = new LinkedHashMap<>();
    private final Map<String, String> units = new LinkedHashMap<>();
    private final Map<String, String> extras = new LinkedHashMap<>();

    /** @param startedAt when the benchmark started (ISO-8601), written into every line */
    BenchReport(String startedAt) {
        this.startedAt = startedAt;
    }

    /**
     * Records one measurement.
     *
     * @param metric the figure's name
     * @param value the measured value
     * @param unit its unit
     * @param run the run, from 1
     * @param fields extra JSON fields, as {@code "name": value} text without braces (may be empty)
     */
    void record(String metric, double value, String unit, int run, String fields) {
        runs.computeIfAbsent(metric, m -> new ArrayList<>()).add(value);
        units.put(metric, unit);
        emit("{\"metric\": \"" + metric + "\", \"value\": " + number(value) + ", \"unit\": \"" + unit + "\", \"run\": "
                + run + (fields.isEmpty() ? "" : ", " + fields) + ", \"at\": \"" + startedAt + "\"}");
    }

    /**
     * Records the cold measurement of a figure (the first of this JVM, before any warm-up): printed with
     * {@code "run": "cold"}, kept out of the median, and shown as {@code "cold"} on the median line.
     *
     * @param fields extra JSON fields, as {@code "name": value} text without braces (may be empty)
     */
    void recordCold(String metric, double value, String unit, String fields) {
        colds.put(metric, value);
        units.put(metric, unit);
        emit("{\"metric\": \"" + metric + "\", \"value\": " + number(value) + ", \"unit\": \"" + unit
                + "\", \"run\": \"cold\"" + (fields.isEmpty() ? "" : ", " + fields) + ", \"at\": \"" + startedAt
                + "\"}");
    }

    /**
     * Prints and appends a line that is not a measurement (no median), such as the environment.
     *
     * @param fields extra JSON fields, as {@code "name": value} text without braces
     */
    void note(String metric, double value, String unit, String fields) {
        emit("{\"metric\": \"" + metric + "\", \"value\": " + number(value) + ", \"unit\": \"" + unit
                + "\", \"run\": 0, " + fields + ", \"at\": \"" + startedAt + "\"}");
    }

    /**
     * Prints and appends a free-form line (no value, no median), such as a skipped part or command statistics.
     *
     * @param fields JSON fields as {@code "name": value} text without braces
     */
    void line(String metric, String fields) {
        emit("{\"metric\": \"" + metric + "\", " + fields + ", \"at\": \"" + startedAt + "\"}");
    }

    /**
     * Adds fields to a figure's median line.
     *
     * @param metric the figure's name
     * @param fields JSON fields as {@code "name": value} text, e.g. the target and BullMQ's figure
     */
    void describe(String metric, String fields) {
        extras.put(metric, fields);
    }

    /**
     * Prints and appends one median line per figure, in the order the figures were first recorded; a figure
     * with a cold measurement carries it as {@code "cold"}.
     */
    void medians() {
        runs.forEach((metric, values) -> {
            List<String> all = values.stream().map(BenchReport::number).toList();
            String extra = extras.getOrDefault(metric, "");
            String cold = colds.containsKey(metric) ? ", \"cold\": " + number(colds.get(metric)) : "";
            emit("{\"metric\": \"" + metric + "\", \"value\": " + number(median(values)) + ", \"unit\": \""
                    + units.get(metric) + "\", \"run\": \"median\", \"runs\": [" + String.join(", ", all) + "]" + cold
                    + (extra.isEmpty() ? "" : ", " + extra) + ", \"at\": \"" + startedAt + "\"}");
        });
    }

    /** @return the median of the recorded runs of a figure, or {@code NaN} when it has none */
    double median(String metric) {
        List<Double> values = runs.get(metric);
        return values == null || values.isEmpty() ? Double.NaN : median(values);
    }

    /** @return the cold measurement of a figure, or {@code NaN} when it has none */
    double cold(String metric) {
        return colds.getOrDefault(metric, Double.NaN);
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "null";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private static void emit(String line) {
        System.out.println(line);
        try {
            Files.createDirectories(FILE.getParent());
            Files.writeString(FILE, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + FILE, e);
        }
    }
}

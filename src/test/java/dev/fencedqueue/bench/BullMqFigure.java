package dev.fencedqueue.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * BullMQ's side of the no-op throughput figures, measured in the same run as {@link ThroughputFigure}
 * against the same {@code redis-server}. {@link #install} copies {@code src/test/bullmq-bench} (a Node
 * script and a {@code package.json} pinning {@code bullmq} 6.7.0 and {@code ioredis} 5.11.1, the version
 * BullMQ 6.7.0 is tested with, with its lock file) to
 * {@code target/bullmq-bench} and runs {@code npm ci} there once (skipped while the installed lock file is
 * the same, so a second run needs no network); {@link #measure} runs the script as a child process and waits
 * for it to exit, so no Node code runs while the Java side is measured, and the other way round.
 */
final class BullMqFigure {

    /** The script, its package and lock file, relative to the module directory. */
    static final Path SOURCE = Path.of("src", "test", "bullmq-bench");

    /** Where they are installed. */
    static final Path TARGET = Path.of("target", "bullmq-bench");

    private static final List<String> FILES = List.of("package.json", "package-lock.json", "bench.cjs");
    private static final String STAMP = "installed-lock.sha256";
    private static final long INSTALL_MINUTES = 5;
    private static final long RUN_MINUTES = 10;

    private final String nodeVersion;
    private final ObjectMapper json;
    private int runs;

    /**
     * What one run of the script measured.
     *
     * @param jobsPerSecond completed jobs per second, from {@code Worker.run()} to the last {@code completed} event
     * @param addsPerSecond jobs added per second ({@code Queue.add}, 500 in flight)
     * @param redisCpuMicrosPerAdd Redis CPU time per job added ({@code INFO cpu}), µs
     * @param nodeCpuMicrosPerAdd the Node process's CPU time per job added ({@code process.cpuUsage()}), µs
     * @param quietAfterAddsMillis how long the Node process took to become idle after the adds, ms (the processing
     *        phase starts then)
     * @param redisCpuMicrosPerJob Redis CPU time per job while processing ({@code INFO cpu}), µs
     * @param nodeCpuMicrosPerJob the Node process's CPU time per job while processing ({@code process.cpuUsage()}), µs
     * @param commandStats Redis's command statistics of the processing phase, or {@code null} when not asked
     */
    record Result(double jobsPerSecond, double addsPerSecond, double redisCpuMicrosPerAdd, double nodeCpuMicrosPerAdd,
            double quietAfterAddsMillis, double redisCpuMicrosPerJob, double nodeCpuMicrosPerJob,
            CommandStats commandStats) {
    }

    private BullMqFigure(String nodeVersion, ObjectMapper json) {
        this.nodeVersion = nodeVersion;
        this.json = json;
    }

    /**
     * Installs the BullMQ side into {@link #TARGET}.
     *
     * @param json Jackson, to read the script's reply
     * @param skipped told why, in one sentence, when the BullMQ side cannot run here (no {@code node} or
     *        {@code npm} on the {@code PATH}, or {@code npm ci} failed)
     * @return the installed side, or {@code null} when skipped
     */
    static BullMqFigure install(ObjectMapper json, Consumer<String> skipped) {
        String node = version("node");
        if (node == null) {
            skipped.accept("no `node` on the PATH: install Node.js 18 or later to measure BullMQ in the same run");
            return null;
        }
        try {
            Files.createDirectories(TARGET);
            for (String file : FILES) {
                Files.copy(SOURCE.resolve(file), TARGET.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
            String lock = sha256(TARGET.resolve("package-lock.json"));
            Path stamp = TARGET.resolve("node_modules").resolve(STAMP);
            if (Files.exists(stamp) && Files.readString(stamp).equals(lock)) {
                return new BullMqFigure(node, json);
            }
            if (version("npm") == null) {
                skipped.accept("no `npm` on the PATH: install npm to measure BullMQ in the same run");
                return null;
            }
            Path log = TARGET.resolve("npm-ci.log");
            Process npm = new ProcessBuilder("npm", "ci", "--ignore-scripts", "--prefer-offline", "--no-audit",
                    "--no-fund").directory(TARGET.toFile()).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start();
            if (!npm.waitFor(INSTALL_MINUTES, TimeUnit.MINUTES)) {
                npm.destroyForcibly();
                skipped.accept("`npm ci` in " + TARGET + " took over " + INSTALL_MINUTES + " minutes (see " + log
                        + ")");
                return null;
            }
            if (npm.exitValue() != 0) {
                skipped.accept("`npm ci` in " + TARGET + " failed with exit code " + npm.exitValue() + " (see " + log
                        + ")");
                return null;
            }
            Files.writeString(stamp, lock);
            return new BullMqFigure(node, json);
        } catch (IOException e) {
            skipped.accept("cannot install " + SOURCE + " into " + TARGET + ": " + e.getMessage());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return {@code node --version} of the Node.js that runs the script, e.g. {@code v20.20.2} */
    String nodeVersion() {
        return nodeVersion;
    }

    /**
     * Runs the script once and waits for its process to exit.
     *
     * @param redisPort the loopback port of the Redis server
     * @param queue a fresh queue name
     * @param jobs jobs to add, then process
     * @param concurrency the worker's concurrency
     * @param warmupJobs jobs the script first processes on another queue, unmeasured (0 for none)
     * @return what it measured
     * @throws IllegalStateException when the script fails or runs over ten minutes (its output is in {@link #TARGET})
     */
    Result measure(int redisPort, String queue, int jobs, int concurrency, int warmupJobs) {
        runs++;
        Path out = TARGET.resolve("run-" + runs + ".json");
        Path err = TARGET.resolve("run-" + runs + ".log");
        List<String> command = new ArrayList<>(List.of("node", "bench.cjs", "--port", Integer.toString(redisPort),
                "--concurrency", Integer.toString(concurrency), "--jobs", Integer.toString(jobs), "--queue", queue,
                "--warmup", Integer.toString(warmupJobs)));
        if (ThroughputFigure.COMMAND_STATS) {
            command.add("--commandstats");
        }
        try {
            Process node = new ProcessBuilder(command).directory(TARGET.toFile()).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            if (!node.waitFor(RUN_MINUTES, TimeUnit.MINUTES)) {
                node.destroyForcibly().waitFor();
                throw new IllegalStateException("the BullMQ script ran over " + RUN_MINUTES + " minutes: " + command);
            }
            if (node.exitValue() != 0) {
                throw new IllegalStateException("the BullMQ script failed with exit code " + node.exitValue() + ": "
                        + Files.readString(err).strip());
            }
            JsonNode reply = json.readTree(Files.readString(out));
            JsonNode stats = reply.get("commandstats");
            return new Result(reply.get("jobsPerSecond").asDouble(), reply.get("addsPerSecond").asDouble(),
                    reply.get("redisCpuMicrosPerAdd").asDouble(), reply.get("nodeCpuMicrosPerAdd").asDouble(),
                    reply.path("quietAfterAddsMs").asDouble(), reply.get("redisCpuMicrosPerJob").asDouble(),
                    reply.get("nodeCpuMicrosPerJob").asDouble(),
                    stats == null ? null : CommandStats.parse(stats.asText()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run the BullMQ script in " + TARGET, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return the first line {@code <tool> --version} prints, or {@code null} when the tool cannot be run */
    private static String version(String tool) {
        try {
            Process process = new ProcessBuilder(tool, "--version").redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return process.waitFor(1, TimeUnit.MINUTES) && process.exitValue() == 0 ? output.lines().findFirst()
                    .orElse("?") : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.fencedqueue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.fencedqueue.dev.EmbeddedRedis;

/**
 * The training run of the JVM's AOT cache, as the JVM container image does it: {@code src/main/docker/aot-training.sh}
 * started on the packaged uber-jar with a JDK 25 (JEPs 483, 514, 515), against a Redis of the caller's, writing the
 * cache when the application it started exits.
 */
public final class AotTraining {

    /** The script the image runs too. */
    public static final Path SCRIPT = Path.of("src", "main", "docker", "aot-training.sh").toAbsolutePath();

    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    private AotTraining() {
    }

    /**
     * The JDK 25 or later that trains and runs with the cache: {@code FQ_AOT_JAVA} (a {@code java} executable), else
     * the JVM running these tests when it is 25 or later, else {@code /usr/lib/jvm/temurin-25-jdk-amd64/bin/java} when
     * installed.
     *
     * @return its {@code java} executable, or empty when there is none
     */
    public static Optional<Path> java() {
        String named = System.getenv("FQ_AOT_JAVA");
        if (named != null && !named.isBlank()) {
            return Optional.of(Path.of(named));
        }
        if (Runtime.version().feature() >= 25) {
            return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
        }
        Path temurin = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
        return Files.isExecutable(temurin) ? Optional.of(temurin) : Optional.empty();
    }

    /**
     * Runs the training and waits for the cache.
     *
     * @param java a JDK 25 or later's {@code java}, must not be {@code null}
     * @param jar the application's uber-jar ({@code ./mvnw package -Paot}: an AOT cache keeps only classes of the
     *        JVM's own class loaders, not those of the fast-jar's), must not be {@code null}
     * @param redisUri a Redis only this run uses ({@code redis://host:port}), must not be {@code null}
     * @param cache the cache file to write (replaced), must not be {@code null}
     * @param researchJobs research jobs the training runs, at least 1
     * @return {@code cache}, written
     * @throws IllegalStateException when the script fails or takes more than ten minutes; the message holds the tail
     *         of the application's log
     */
    public static Path run(Path java, Path jar, String redisUri, Path cache, int researchJobs) {
        Path log = cache.resolveSibling("training.log");
        Path output = cache.resolveSibling("training-script.log");
        try {
            Files.createDirectories(cache.getParent());
            ProcessBuilder builder = new ProcessBuilder("bash", SCRIPT.toString()).redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            builder.environment().putAll(Map.of("APP_JAR", jar.toString(), "JAVA", java.toString(),
                    "AOT_CACHE", cache.toString(), "REDIS_URL", redisUri,
                    "PORT", Integer.toString(EmbeddedRedis.freePort()), "JOBS", Integer.toString(researchJobs),
                    "LOG", log.toString()));
            Process script = builder.start();
            if (!script.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                script.descendants().forEach(ProcessHandle::destroyForcibly);
                script.destroyForcibly();
                throw new IllegalStateException("the AOT training took longer than " + TIMEOUT + ": " + tail(log));
            }
            if (script.exitValue() != 0) {
                throw new IllegalStateException("the AOT training failed: " + Files.readString(output) + tail(log));
            }
            return cache;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + SCRIPT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while training the AOT cache", e);
        }
    }

    private static String tail(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "(no log)";
        }
        String text = Files.readString(log);
        return text.substring(Math.max(0, text.length() - 4_000));
    }
}

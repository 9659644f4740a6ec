package dev.fencedqueue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import redis.embedded.RedisExecProvider;

/**
 * The {@code redis-server} every test runs, chosen by one setting: the system property {@value #PROPERTY} or, without
 * it, the environment variable {@value #VARIABLE}, each the path of a {@code redis-server}-compatible binary (a Redis
 * 7.2 or 8.x {@code redis-server}, or a {@code valkey-server}, whose one binary also runs {@code --sentinel} and Cluster
 * nodes). Without either, the static Redis 7.0.15 binary of {@code org.signal:embedded-redis}. Every Redis process of
 * the tests ({@link RedisProcess}: single servers, replicas, Sentinels, Cluster nodes) comes from it.
 */
public final class RedisServers {

    /** The system property that names the binary; wins over {@link #VARIABLE}. */
    public static final String PROPERTY = "fq.test.redis-server";
    /** The environment variable that names the binary. */
    public static final String VARIABLE = "FQ_TEST_REDIS_SERVER";

    private static final Pattern VERSION = Pattern.compile("^(\\w+) server v=(\\d+)\\.(\\d+)");
    private static volatile String binary;
    private static volatile String version;

    private RedisServers() {
    }

    /**
     * @return the absolute path of the chosen binary (extracted from {@code embedded-redis} the first time when none is
     *         chosen)
     * @throws IllegalStateException when the chosen path is not an executable file
     * @throws UncheckedIOException when the embedded binary cannot be extracted
     */
    public static synchronized String binary() {
        if (binary == null) {
            binary = choose();
            if (System.getProperties().putIfAbsent(PROPERTY + ".shown", "true") == null) { // once per JVM, not per class loader
                System.out.printf("tests' Redis server: %s (%s)%n", binary, version());
            }
        }
        return binary;
    }

    /**
     * @return the binary's own {@code --version} line, e.g. {@code Redis server v=7.0.15 ...} or
     *         {@code Valkey server v=8.1.1 ...}
     */
    public static synchronized String version() {
        if (version == null) {
            version = askVersion(binary());
        }
        return version;
    }

    /**
     * For JUnit's {@code @EnabledIf("dev.fencedqueue.testing.RedisServers#hasWaitAof")}.
     *
     * @return whether the chosen server has {@code WAITAOF}: Redis 7.2 or later, or any Valkey (which speaks Redis
     *         7.2.4)
     */
    public static boolean hasWaitAof() {
        Matcher m = VERSION.matcher(version());
        if (!m.find()) {
            throw new IllegalStateException("cannot read the version of " + binary() + ": " + version());
        }
        int major = Integer.parseInt(m.group(2));
        int minor = Integer.parseInt(m.group(3));
        return "Valkey".equalsIgnoreCase(m.group(1)) || major > 7 || (major == 7 && minor >= 2);
    }

    /** @return the opposite of {@link #hasWaitAof()}, for {@code @EnabledIf} */
    public static boolean lacksWaitAof() {
        return !hasWaitAof();
    }

    private static String choose() {
        String chosen = System.getProperty(PROPERTY);
        String source = "-D" + PROPERTY;
        if (chosen == null || chosen.isBlank()) {
            chosen = System.getenv(VARIABLE);
            source = VARIABLE;
        }
        if (chosen == null || chosen.isBlank()) {
            try {
                return RedisExecProvider.defaultProvider().get().getAbsolutePath();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot extract embedded-redis's redis-server", e);
            }
        }
        Path path = Path.of(chosen.trim()).toAbsolutePath();
        if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
            throw new IllegalStateException(source + " names " + path + ", which is no executable file");
        }
        return path.toString();
    }

    private static String askVersion(String path) {
        try {
            Process process = new ProcessBuilder(path, "--version").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(path + " --version did not end");
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + path + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

package dev.fencedqueue.testing;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.restassured.specification.RequestSpecification;

/**
 * One packaged fenced-queue service running as a child process on a loopback port, its output in a log file:
 * the jar or the native executable that the build produced ({@link PackagedApplication#built()}). It can be
 * frozen with SIGSTOP and woken with SIGCONT, like a pod paused by a long GC or a stopped container.
 */
public final class ServiceProcess implements AutoCloseable {

    /**
     * JVM options of test processes: C1 only and the serial collector, a much faster start on small CI machines;
     * throughput is irrelevant there. Benchmarks pass their own.
     */
    public static final List<String> TEST_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);

    private final String name;
    private final Process process;
    private final URI baseUri;
    private final Path log;
    private final long startedNanos;
    private volatile boolean frozen;

    private ServiceProcess(String name, Process process, URI baseUri, Path log, long startedNanos) {
        this.name = name;
        this.process = process;
        this.baseUri = baseUri;
        this.log = log;
        this.startedNanos = startedNanos;
    }

    /**
     * The options of a test process ({@link #TEST_JVM_OPTIONS}), with the class-data sharing archive of the
     * application's jar ({@link ClassDataArchive}) when it is a jar run by the JVM running these tests; written
     * the first time it is asked for, about 8 s.
     *
     * @param application the application to start, must not be {@code null}
     * @return the JVM options; {@link #TEST_JVM_OPTIONS} alone for a native executable, another JVM, or when no
     *         archive could be written
     */
    public static List<String> testJvmOptions(PackagedApplication application) {
        if (application.type() != PackagedApplication.Type.JAR || application.java() != null) {
            return TEST_JVM_OPTIONS;
        }
        return ClassDataArchive.of(application, TEST_JVM_OPTIONS)
                .map(archive -> Stream.concat(TEST_JVM_OPTIONS.stream(),
                        Stream.of("-XX:SharedArchiveFile=" + archive)).toList())
                .orElse(TEST_JVM_OPTIONS);
    }

    /**
     * Starts the built application ({@link PackagedApplication#built()}) with {@link #testJvmOptions}; does
     * not wait until it is ready.
     *
     * @param name a name for messages, must not be {@code null}
     * @param port the loopback HTTP port, which must be free
     * @param config configuration passed as {@code -Dkey=value}, must not be {@code null}
     * @param environment variables added to the inherited environment, must not be {@code null}
     * @param log the file that receives the process's stdout and stderr (replaced), must not be {@code null}
     * @return the running process
     * @throws IllegalStateException when the application was not built
     * @throws UncheckedIOException when the process cannot be started
     */
    public static ServiceProcess start(String name, int port, Map<String, String> config,
            Map<String, String> environment, Path log) {
        PackagedApplication application = PackagedApplication.built();
        return start(application, testJvmOptions(application), name, port, config, environment, log);
    }

    /**
     * Starts an application; does not wait until it is ready.
     *
     * @param application the jar or native executable, must not be {@code null}
     * @param jvmOptions JVM options (ignored by a native executable), must not be {@code null}
     * @param name a name for messages, must not be {@code null}
     * @param port the loopback HTTP port, which must be free
     * @param config configuration passed as {@code -Dkey=value}, must not be {@code null}
     * @param environment variables added to the inherited environment, must not be {@code null}
     * @param log the file that receives the process's stdout and stderr (replaced), must not be {@code null}
     * @return the running process
     * @throws UncheckedIOException when the process cannot be started
     */
    public static ServiceProcess start(PackagedApplication application, List<String> jvmOptions, String name, int port,
            Map<String, String> config, Map<String, String> environment, Path log) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("quarkus.http.host", "127.0.0.1");
        all.put("quarkus.http.port", Integer.toString(port));
        // The tests' LLM: the built-in simulator, off by default in the packaged application, speaking the research
        // protocol as the in-process tests' (%test) does, unless a test names another.
        all.put("fq.simulator.enabled", "true");
        all.put("fq.llm.protocol", "research");
        all.putAll(config);
        List<String> command = application.command(jvmOptions, all);
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
            builder.environment().putAll(environment);
            long startedNanos = System.nanoTime();
            Process process = builder.start();
            return new ServiceProcess(name, process, URI.create("http://127.0.0.1:" + port), log, startedNanos);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
    }

    /**
     * Waits until {@code /q/health/ready} answers 200; fails at once if the process exits.
     *
     * @param timeout the longest wait
     */
    public void awaitReady(Duration timeout) {
        awaitReady(timeout, Duration.ofMillis(100));
    }

    /**
     * Waits until {@code /q/health/ready} answers 200; fails at once if the process exits.
     *
     * @param timeout the longest wait
     * @param pollInterval the time between two probes
     * @return the ms from the start of the process to the first 200
     */
    public long awaitReady(Duration timeout, Duration pollInterval) {
        await(name + " ready at " + baseUri).atMost(timeout).pollDelay(Duration.ZERO).pollInterval(pollInterval)
                .failFast(name + " exited before it was ready, see " + log, () -> !process.isAlive())
                .until(this::isReady);
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    /** @return a RestAssured request against this process */
    public RequestSpecification request() {
        return given().baseUri(baseUri.toString());
    }

    /**
     * @param path an absolute path, such as {@code /research/stream/x}
     * @return the URL of the path on this process
     */
    public String url(String path) {
        return baseUri.resolve(path).toString();
    }

    /** Freezes the whole process (SIGSTOP): no timer fires, no socket is read, nothing is answered. */
    public void freeze() {
        signal("STOP");
        frozen = true;
    }

    /** Wakes a frozen process (SIGCONT): it goes on where it stopped, its timers all late. */
    public void thaw() {
        signal("CONT");
        frozen = false;
    }

    /**
     * Asks the process to shut down (SIGTERM), as Kubernetes does when it deletes a pod; does not wait.
     */
    public void terminate() {
        signal("TERM");
    }

    /** @return the process id */
    public long pid() {
        return process.pid();
    }

    /** @return whether the process is still running */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits until the process exits.
     *
     * @param timeout the longest wait
     * @return its exit status
     * @throws IllegalStateException when it is still running after {@code timeout}
     */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(this + " still runs " + timeout + " after it was asked to stop");
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + this + " to exit", e);
        }
    }

    /** @return the process's output so far */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** @return the log file */
    public Path logFile() {
        return log;
    }

    /**
     * Ends the process: wakes it if frozen, asks it to shut down (SIGTERM), and kills it (SIGKILL) when it is
     * still running after 15 s. Does nothing when it already exited.
     */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        requestShutdown();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Wakes the process if frozen and asks it to shut down (SIGTERM), without waiting: {@link #close()} then waits,
     * so that several processes asked first shut down side by side. Does nothing when it already exited.
     */
    public void requestShutdown() {
        if (!process.isAlive()) {
            return;
        }
        if (frozen) {
            try {
                thaw();
            } catch (RuntimeException e) {
                // a stopped process acts on SIGTERM only once continued; close's SIGKILL ends it anyway
            }
        }
        process.destroy();
    }

    /** Kills the process at once (SIGCONT, then SIGKILL), for a JVM shutdown hook. */
    public void kill() {
        if (process.isAlive()) {
            if (frozen) {
                try {
                    thaw();
                } catch (RuntimeException ignored) {
                    // killed below anyway
                }
            }
            process.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", " + baseUri + ")";
    }

    private boolean isReady() {
        HttpRequest ready = HttpRequest.newBuilder(baseUri.resolve("/q/health/ready")).timeout(Duration.ofSeconds(2)).build();
        try {
            return HTTP.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + this + " failed: "
                        + new String(kill.getInputStream().readAllBytes()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal + " for " + this, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal + " to " + this, e);
        }
    }

}

package dev.fencedqueue.it;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.restassured.specification.RequestSpecification;

/**
 * One packaged fenced-queue service ({@code java -jar target/quarkus-app/quarkus-run.jar}) running as a
 * child process on a loopback port, its output in a log file. It can be frozen with SIGSTOP and woken with
 * SIGCONT, like a pod paused by a long GC or a stopped container.
 */
final class ServiceProcess implements AutoCloseable {

    /** The runnable jar that the {@code package} phase builds, before failsafe runs. */
    static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);

    private final String name;
    private final Process process;
    private final URI baseUri;
    private final Path log;
    private volatile boolean frozen;

    private ServiceProcess(String name, Process process, URI baseUri, Path log) {
        this.name = name;
        this.process = process;
        this.baseUri = baseUri;
        this.log = log;
    }

    /**
     * Starts the service; does not wait until it is ready.
     *
     * @param name a name for messages, must not be {@code null}
     * @param port the loopback HTTP port, which must be free
     * @param config configuration passed as {@code -Dkey=value}, must not be {@code null}
     * @param log the file that receives the process's stdout and stderr (replaced), must not be {@code null}
     * @return the running process
     * @throws IllegalStateException when the jar was not built
     * @throws UncheckedIOException when the process cannot be started
     */
    static ServiceProcess start(String name, int port, Map<String, String> config, Path log) {
        return start(name, port, config, Map.of(), log);
    }

    /**
     * Starts the service with extra environment variables; does not wait until it is ready.
     *
     * @param name a name for messages, must not be {@code null}
     * @param port the loopback HTTP port, which must be free
     * @param config configuration passed as {@code -Dkey=value}, must not be {@code null}
     * @param environment variables added to the inherited environment, must not be {@code null}
     * @param log the file that receives the process's stdout and stderr (replaced), must not be {@code null}
     * @return the running process
     * @throws IllegalStateException when the jar was not built
     * @throws UncheckedIOException when the process cannot be started
     */
    static ServiceProcess start(String name, int port, Map<String, String> config, Map<String, String> environment,
            Path log) {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR + " does not exist: run `./mvnw verify`, whose package phase builds it");
        }
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        // C1 only and the serial collector: a much faster start on small CI machines; throughput is irrelevant here.
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-Dquarkus.http.host=127.0.0.1");
        command.add("-Dquarkus.http.port=" + port);
        config.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.add("-jar");
        command.add(JAR.toString());
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
            builder.environment().putAll(environment);
            Process process = builder.start();
            return new ServiceProcess(name, process, URI.create("http://127.0.0.1:" + port), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
    }

    /**
     * Waits until {@code /q/health/ready} answers 200; fails at once if the process exits.
     *
     * @param timeout the longest wait
     */
    void awaitReady(Duration timeout) {
        await(name + " ready at " + baseUri).atMost(timeout).pollInterval(Duration.ofMillis(100))
                .failFast(name + " exited before it was ready, see " + log, () -> !process.isAlive())
                .until(this::isReady);
    }

    /** @return a RestAssured request against this process */
    RequestSpecification request() {
        return given().baseUri(baseUri.toString());
    }

    /**
     * @param path an absolute path, such as {@code /research/stream/x}
     * @return the URL of the path on this process
     */
    String url(String path) {
        return baseUri.resolve(path).toString();
    }

    /** Freezes the whole process (SIGSTOP): no timer fires, no socket is read, nothing is answered. */
    void freeze() {
        signal("STOP");
        frozen = true;
    }

    /** Wakes a frozen process (SIGCONT): it goes on where it stopped, its timers all late. */
    void thaw() {
        signal("CONT");
        frozen = false;
    }

    /**
     * Asks the process to shut down (SIGTERM), as Kubernetes does when it deletes a pod; does not wait.
     */
    void terminate() {
        signal("TERM");
    }

    /** @return whether the process is still running */
    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits until the process exits.
     *
     * @param timeout the longest wait
     * @return its exit status
     * @throws IllegalStateException when it is still running after {@code timeout}
     */
    int awaitExit(Duration timeout) {
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
    String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** @return the log file */
    Path logFile() {
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
        if (frozen) {
            try {
                thaw();
            } catch (RuntimeException e) {
                // a stopped process acts on SIGTERM only once continued; the SIGKILL below ends it anyway
            }
        }
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the process at once (SIGCONT, then SIGKILL), for a JVM shutdown hook. */
    void kill() {
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

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}

package dev.fencedqueue.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.dev.EmbeddedPostgresServer;
import dev.fencedqueue.dev.EmbeddedRedis;
import dev.fencedqueue.testing.NotificationRows;
import dev.fencedqueue.testing.PackagedApplication;
import dev.fencedqueue.testing.RedisProcess;
import dev.fencedqueue.testing.ServiceProcess;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Redis and the packaged service processes (jar or native executable, whichever the build produced:
 * {@link dev.fencedqueue.testing.PackagedApplication}) of one test, as a JUnit extension: starts Redis before
 * each test, launches processes pointing at it on demand, and after each test, pass or fail, ends every
 * process (waking frozen ones first), prints their logs if the test failed, and stops Redis. A JVM shutdown
 * hook kills whatever is left if the test JVM itself is ended early.
 */
final class ProcessFleet implements BeforeEachCallback, AfterEachCallback {

    /** Where each test class's processes write their logs, {@code <class>/<worker id>.log}: classes may run at once. */
    private static final Path LOGS = Path.of("target", "process-it").toAbsolutePath();

    /**
     * Locks of about a second, as in the in-JVM tests, so that a frozen or killed instance loses its jobs quickly; a
     * job fails only after five stalls, not the default one, since a renewal late by a second on a busy machine stalls
     * a job before the stop a test makes (seen in {@code LlmOutageProcessIT}, 2026-12-02: the test's own SIGSTOP was
     * the job's second stall, which failed it); a simulator step every 200 ms; debug logs of fenced-queue (printed
     * when a test fails).
     */
    static final Map<String, String> SHORT_LOCKS = Map.of(
            "fq.worker.lock.duration", "1s",
            "fq.worker.lock.renew-interval", "300ms",
            "fq.worker.stalled.interval", "500ms",
            "fq.worker.stalled.max-count", "5",
            "fq.worker.drain-delay", "1s",
            "fq.simulator.research.step-interval", "200ms",
            "quarkus.log.category.\"dev.fencedqueue\".level", "DEBUG");
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final Map<String, String> config;
    private final boolean withPostgres;
    private final List<ServiceProcess> processes = new ArrayList<>();
    private final Thread killer = new Thread(this::killAll, "process-fleet-killer");
    private RedisProcess redis;
    private EmbeddedPostgresServer postgres;
    private Path logs = LOGS;

    /**
     * @param config configuration of every process, as {@code -Dkey=value}, must not be {@code null}
     */
    ProcessFleet(Map<String, String> config) {
        this(config, false);
    }

    private ProcessFleet(Map<String, String> config, boolean withPostgres) {
        this.config = Map.copyOf(config);
        this.withPostgres = withPostgres;
    }

    /**
     * A fleet that also starts a real PostgreSQL ({@link EmbeddedPostgresServer}) before each test, which every
     * process uses as its datasource, and stops it after.
     *
     * @param config configuration of every process, must not be {@code null}
     * @return the fleet
     */
    static ProcessFleet withPostgres(Map<String, String> config) {
        return new ProcessFleet(config, true);
    }

    /** @return the rows of the test's PostgreSQL; only for a fleet made {@link #withPostgres} */
    NotificationRows rows() {
        if (postgres == null) {
            throw new IllegalStateException("this fleet has no PostgreSQL: make it with ProcessFleet.withPostgres");
        }
        return NotificationRows.on(postgres);
    }

    /** @return the port of the test's Redis on 127.0.0.1; only during a test */
    int redisPort() {
        return redis.port();
    }

    /** @return the test's Redis process, to send it commands ({@code CONFIG SET}); only during a test */
    RedisProcess redis() {
        return redis;
    }

    /** @return the test's Redis, {@code redis://127.0.0.1:<port>}; only during a test */
    String redisUri() {
        return redis.uri();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        logs = LOGS.resolve(context.getRequiredTestClass().getSimpleName());
        Runtime.getRuntime().addShutdownHook(killer);
        redis = RedisProcess.startAlone("--save", "", "--appendonly", "no");
        if (withPostgres) {
            postgres = EmbeddedPostgresServer.start();
        }
    }

    /**
     * Launches a service process with its own worker id on a free port and waits until it is ready.
     *
     * @param workerId the process's {@code fq.worker.id}, also the name of its log file, must not be {@code null}
     * @param extraConfig configuration of this process only, must not be {@code null}
     * @return the ready process
     */
    ServiceProcess launch(String workerId, Map<String, String> extraConfig) {
        return launch(workerId, extraConfig, Map.of());
    }

    /**
     * Launches a service process with extra environment variables, like {@link #launch(String, Map)}.
     *
     * @param workerId the process's {@code fq.worker.id}, also the name of its log file, must not be {@code null}
     * @param extraConfig configuration of this process only, must not be {@code null}
     * @param environment environment variables of this process only, must not be {@code null}
     * @return the ready process
     */
    ServiceProcess launch(String workerId, Map<String, String> extraConfig, Map<String, String> environment) {
        ServiceProcess process = start(workerId, extraConfig, environment);
        process.awaitReady(READY_TIMEOUT);
        return process;
    }

    /**
     * Waits until processes started with {@link #start} are ready: processes started one after the other and then
     * awaited together start side by side, which saves a test one start-up time per process.
     *
     * @param started the processes, must not be {@code null}
     */
    void awaitReady(ServiceProcess... started) {
        for (ServiceProcess process : started) {
            process.awaitReady(READY_TIMEOUT);
        }
    }

    /**
     * Starts a service process like {@link #launch(String, Map, Map)}, without waiting for it to be ready: for
     * a process expected to refuse to start, or for several that start side by side ({@link #awaitReady}).
     *
     * @param workerId the process's {@code fq.worker.id}, also the name of its log file, must not be {@code null}
     * @param extraConfig configuration of this process only, must not be {@code null}
     * @param environment environment variables of this process only, must not be {@code null}
     * @return the started process
     */
    ServiceProcess start(String workerId, Map<String, String> extraConfig, Map<String, String> environment) {
        PackagedApplication application = PackagedApplication.built();
        return start(workerId, application, ServiceProcess.testJvmOptions(application), extraConfig, environment);
    }

    /**
     * Starts a service process like {@link #start(String, Map, Map)}, of a given application on given JVM options.
     *
     * @param workerId the process's {@code fq.worker.id}, also the name of its log file, must not be {@code null}
     * @param application the application and the JVM that runs it, must not be {@code null}
     * @param jvmOptions its JVM options (ignored by a native executable), must not be {@code null}
     * @param extraConfig configuration of this process only, must not be {@code null}
     * @param environment environment variables of this process only, must not be {@code null}
     * @return the started process
     */
    ServiceProcess start(String workerId, PackagedApplication application, List<String> jvmOptions,
            Map<String, String> extraConfig, Map<String, String> environment) {
        Map<String, String> all = new LinkedHashMap<>(config);
        all.put("quarkus.redis.hosts", redis.uri()); // a process's own config may lead it elsewhere (a proxy)
        all.putAll(extraConfig);
        if (postgres != null) {
            all.put("quarkus.datasource.jdbc.url", postgres.jdbcUrl());
            all.put("quarkus.datasource.username", EmbeddedPostgresServer.USER);
            all.put("quarkus.datasource.password", EmbeddedPostgresServer.PASSWORD);
        }
        all.put("fq.worker.id", workerId);
        ServiceProcess process;
        synchronized (processes) {
            process = ServiceProcess.start(application, jvmOptions, workerId, EmbeddedRedis.freePort(), all,
                    environment, logs.resolve(workerId + ".log"));
            processes.add(process);
        }
        return process;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        try {
            // All asked at once, then awaited: each process's shutdown (about a second, more when it hands jobs
            // back) overlaps the others'.
            List<ServiceProcess> running = reversed();
            running.forEach(ServiceProcess::requestShutdown);
            running.forEach(ServiceProcess::close);
            if (context.getExecutionException().isPresent()) {
                for (ServiceProcess process : snapshot()) {
                    System.out.printf("%n===== log of %s (%s) =====%n%s===== end of log of %s =====%n", process,
                            process.logFile(), process.log(), process);
                }
            }
        } finally {
            synchronized (processes) {
                processes.clear();
            }
            if (redis != null) {
                redis.close();
                redis = null;
            }
            if (postgres != null) {
                postgres.close();
                postgres = null;
            }
            Runtime.getRuntime().removeShutdownHook(killer);
        }
    }

    private void killAll() {
        reversed().forEach(ServiceProcess::kill);
        if (redis != null) {
            redis.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    private List<ServiceProcess> snapshot() {
        synchronized (processes) {
            return List.copyOf(processes);
        }
    }

    private List<ServiceProcess> reversed() {
        List<ServiceProcess> copy = new ArrayList<>(snapshot());
        Collections.reverse(copy);
        return copy;
    }
}

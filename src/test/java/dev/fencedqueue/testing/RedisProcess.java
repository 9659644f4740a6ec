package dev.fencedqueue.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.fencedqueue.dev.EmbeddedRedis;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * A {@code redis-server} process that a test controls like an operator or a crash would: the tests' binary
 * ({@link RedisServers#binary()}: embedded-redis's Redis 7.0.15 unless a setting names another) run directly, on a free
 * loopback port, with its own working directory
 * (where {@code SAVE} writes {@code dump.rdb} and the AOF lives), so that it can be killed with {@code SIGKILL} and
 * started again on the same port from what it had persisted. Its log is {@code redis.log} in that directory.
 */
public final class RedisProcess implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final Vertx vertx;
    private final boolean ownsVertx;
    private final Path dir;
    private final int port;
    private final List<String> settings;
    private final String configFile;
    private Process process;

    private RedisProcess(Vertx vertx, boolean ownsVertx, Path dir, int port, List<String> settings, String configFile) {
        this.vertx = vertx;
        this.ownsVertx = ownsVertx;
        this.dir = dir;
        this.port = port;
        this.settings = settings;
        this.configFile = configFile;
    }

    /**
     * Starts a server of the tests' binary ({@link RedisServers#binary()}) and waits until it answers {@code PING}.
     *
     * @param vertx the Vert.x instance whose Redis client {@link #call} uses
     * @param settings {@code redis-server} options, each as on its command line ({@code "--appendonly", "yes"});
     *        {@code --port}, {@code --bind} and {@code --dir} are set already
     * @return the running server
     * @throws UncheckedIOException when the binary cannot be extracted or started
     * @throws org.awaitility.core.ConditionTimeoutException when it does not answer within 20 s (it is then killed)
     */
    public static RedisProcess start(Vertx vertx, String... settings) {
        return launch(vertx, false, settings);
    }

    /**
     * Starts a server as {@link #start} does, with a Vert.x instance of its own for {@link #call}, closed with it: for
     * tests that have none at hand.
     *
     * @param settings {@code redis-server} options, as for {@link #start}
     * @return the running server
     */
    public static RedisProcess startAlone(String... settings) {
        Vertx vertx = Vertx.vertx();
        try {
            return launch(vertx, true, settings);
        } catch (RuntimeException e) {
            vertx.close();
            throw e;
        }
    }

    private static RedisProcess launch(Vertx vertx, boolean ownsVertx, String... settings) {
        try {
            Path dir = Files.createTempDirectory("fq-redis-");
            RedisProcess redis = new RedisProcess(vertx, ownsVertx, dir, EmbeddedRedis.freePort(), List.of(settings), null);
            redis.restart();
            return redis;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts a Sentinel ({@code redis-server sentinel.conf --sentinel}) that monitors a master, with a quorum of 2 and
     * quick failure detection (down after 1 s), and waits until it answers {@code PING}.
     *
     * @param vertx the Vert.x instance whose Redis client {@link #call} uses
     * @param masterName the name of the monitored master set
     * @param masterPort the master's port on 127.0.0.1
     * @return the running Sentinel
     */
    public static RedisProcess sentinel(Vertx vertx, String masterName, int masterPort) {
        try {
            Path dir = Files.createTempDirectory("fq-sentinel-");
            Files.writeString(dir.resolve("sentinel.conf"), String.join("\n",
                    "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " 2",
                    "sentinel down-after-milliseconds " + masterName + " 1000",
                    "sentinel failover-timeout " + masterName + " 10000",
                    "sentinel parallel-syncs " + masterName + " 1", ""));
            RedisProcess redis = new RedisProcess(vertx, false, dir, EmbeddedRedis.freePort(), List.of("--sentinel"),
                    dir.resolve("sentinel.conf").toString());
            redis.restart();
            return redis;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return {@code redis://127.0.0.1:<port>} */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** @return the port it listens on (the same across restarts) */
    public int port() {
        return port;
    }

    /** @return whether the process runs */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Kills the process with {@code SIGKILL}, as a crash or the OOM killer would: nothing is flushed. Does nothing when
     * it is not running.
     */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("redis-server " + process.pid() + " outlived SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            process = null;
        }
    }

    /**
     * Starts the process again, with the same options, port and directory, so that it loads what it persisted there;
     * waits until it answers {@code PING}. Does nothing when it runs.
     */
    public synchronized void restart() {
        if (process != null) {
            return;
        }
        List<String> command = new ArrayList<>(List.of(RedisServers.binary()));
        if (configFile != null) {
            command.add(configFile); // a Sentinel needs a config file of its own, which it rewrites
        }
        command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString()));
        command.addAll(settings);
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            await("redis-server on port " + port + " answers PING").atMost(TIMEOUT).pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions().until(() -> "PONG".equals(call("PING").toString()));
        } catch (RuntimeException e) {
            kill();
            throw e;
        }
    }

    /**
     * Sends one command on a connection of its own.
     *
     * @param command the command's name ({@code "SAVE"}, {@code "REPLICAOF"}, ...)
     * @param args its arguments
     * @return the reply ({@code null} for a nil reply)
     * @throws RuntimeException when the server answers with an error or not within 20 s
     */
    public Response call(String command, String... args) {
        Request request = Request.cmd(Command.create(command));
        for (String arg : args) {
            request.arg(arg);
        }
        Redis client = Redis.createClient(vertx, new RedisOptions().setConnectionString(uri()));
        try {
            return client.send(request).toCompletionStage()
                    .toCompletableFuture().orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
        } finally {
            client.close();
        }
    }

    /**
     * Makes this server a replica ({@code REPLICAOF}) of the one listening on {@code masterPort} on 127.0.0.1 and waits
     * until its replication link is up.
     *
     * @param masterPort the port of the master, or of a proxy in front of it
     * @throws org.awaitility.core.ConditionTimeoutException when it is not in sync within 20 s
     */
    public void replicaOf(int masterPort) {
        call("REPLICAOF", "127.0.0.1", Integer.toString(masterPort));
        await("the replica on port " + port + " is in sync").atMost(TIMEOUT).ignoreExceptions()
                .until(() -> call("INFO", "replication").toString().contains("master_link_status:up"));
    }

    /** Kills the process and deletes its directory (and closes its Vert.x instance when it has one of its own). */
    @Override
    public void close() {
        try {
            kill();
        } finally {
            TempDirectories.delete(dir);
            if (ownsVertx) {
                vertx.close().toCompletionStage().toCompletableFuture().join();
            }
        }
    }
}

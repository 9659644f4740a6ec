package dev.fencedqueue.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.fencedqueue.testing.ServiceProcess;

/**
 * Watches a process that shuts down: from {@link #start} until the process exits (or {@link #close}), polls
 * a few of its paths every 20 ms and records every change of answer, with the time since the start, so that
 * a test can read what the process answered in its last second (readiness DOWN, counters) after it exited.
 */
final class ShutdownWatch implements AutoCloseable {

    /**
     * One answer of a path.
     *
     * @param afterMs ms since the watch started
     * @param status the HTTP status
     * @param body the body
     */
    record Answer(long afterMs, int status, String body) {
    }

    private static final Duration POLL = Duration.ofMillis(20);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    private final ServiceProcess process;
    private final List<String> paths;
    private final long startedNanos = System.nanoTime();
    private final Map<String, List<Answer>> answers = new ConcurrentHashMap<>();
    private final ScheduledExecutorService poller;

    private ShutdownWatch(ServiceProcess process, List<String> paths) {
        this.process = process;
        this.paths = List.copyOf(paths);
        paths.forEach(path -> answers.put(path, new CopyOnWriteArrayList<>()));
        this.poller = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "shutdown-watch-" + process);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Starts watching now.
     *
     * @param process the process, must not be {@code null}
     * @param paths absolute paths to poll, such as {@code /q/health/ready}
     * @return the running watch
     */
    static ShutdownWatch start(ServiceProcess process, List<String> paths) {
        ShutdownWatch watch = new ShutdownWatch(process, paths);
        watch.poller.scheduleWithFixedDelay(watch::poll, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
        return watch;
    }

    /** @return the ms elapsed since the watch started */
    long elapsedMs() {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    /**
     * @param path a watched path
     * @param status an HTTP status
     * @return the first answer of that path with that status
     */
    Optional<Answer> first(String path, int status) {
        return answers.get(path).stream().filter(answer -> answer.status() == status).findFirst();
    }

    /**
     * @param path a watched path
     * @return the last answer the path gave before the process stopped answering
     */
    Optional<Answer> last(String path) {
        List<Answer> of = answers.get(path);
        return of.isEmpty() ? Optional.empty() : Optional.of(of.get(of.size() - 1));
    }

    /** @return every recorded change, for failure messages */
    @Override
    public String toString() {
        return answers.toString();
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }

    private void poll() {
        if (!process.isAlive()) {
            poller.shutdown();
            return;
        }
        paths.forEach(this::record);
    }

    private void record(String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(process.url(path))).timeout(Duration.ofMillis(500)).build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            List<Answer> of = answers.get(path);
            Answer previous = of.isEmpty() ? null : of.get(of.size() - 1);
            if (previous == null || previous.status() != response.statusCode() || !previous.body().equals(response.body())) {
                of.add(new Answer(elapsedMs(), response.statusCode(), response.body()));
            }
        } catch (IOException e) {
            // not answering (any more): nothing to record
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

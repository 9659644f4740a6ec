package dev.fencedqueue.bench;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads the simulated provider's counters ({@code GET /simulator/provider}: requests admitted, answered {@code 429},
 * failed by an outage) every {@code interval} on a thread of its own, and keeps each reading with the wall-clock time
 * it was taken: the simulator counts each admission when it happens, so a call's admission is known to within one
 * interval. Readings that fail (the simulator busy) are skipped.
 */
final class ProviderSampler implements AutoCloseable {

    /**
     * One reading.
     *
     * @param atMillis when it was taken, ms since the epoch (this machine's clock, which the simulator shares)
     * @param admitted requests admitted since the simulator started
     * @param rateLimited requests answered {@code 429} since it started
     * @param failed requests failed by an outage since it started
     * @param remainingTokens tokens its limit would admit now, -1 without a token limit
     */
    record Sample(long atMillis, long admitted, long rateLimited, long failed, long remainingTokens) {

        /** @return every request the simulator answered */
        long calls() {
            return admitted + rateLimited + failed;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private final HttpRequest request;
    private final List<Sample> samples = new CopyOnWriteArrayList<>();
    private final List<Consumer<Sample>> listeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "provider-sampler");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * Starts reading at once.
     *
     * @param providerUrl the simulator's {@code /simulator/provider}, must not be {@code null}
     * @param interval the time between two readings, positive
     */
    ProviderSampler(String providerUrl, Duration interval) {
        this.request = HttpRequest.newBuilder(URI.create(providerUrl)).timeout(Duration.ofSeconds(2)).GET().build();
        timer.scheduleAtFixedRate(this::read, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** @param listener called on the sampler's thread with every reading from now on, must not throw */
    void onSample(Consumer<Sample> listener) {
        listeners.add(listener);
    }

    /** @return the readings so far, oldest first */
    List<Sample> samples() {
        return new ArrayList<>(samples);
    }

    /** @return the latest reading, or a reading of zeros when none was taken yet */
    Sample last() {
        List<Sample> all = samples();
        return all.isEmpty() ? new Sample(System.currentTimeMillis(), 0, 0, 0, -1) : all.get(all.size() - 1);
    }

    /**
     * Waits (5 s at most) for a reading taken after {@code millis}, so that it counts every call made before then.
     *
     * @param millis a time, ms since the epoch
     * @return the latest reading, taken after {@code millis}
     */
    Sample after(long millis) {
        await().atMost(Duration.ofSeconds(5)).until(() -> last().atMillis() > millis);
        return last();
    }

    /**
     * The times at which the simulator admitted requests: for each request admitted between two readings, the time
     * of the later reading.
     *
     * @return one time per admitted request, ms since the epoch, in order
     */
    List<Long> admissions() {
        return times(Sample::admitted);
    }

    /**
     * The times at which the simulator answered {@code 429}, as {@link #admissions} gives those it admitted.
     *
     * @return one time per refused request, ms since the epoch, in order
     */
    List<Long> refusals() {
        return times(Sample::rateLimited);
    }

    private List<Long> times(ToLongFunction<Sample> counter) {
        List<Long> times = new ArrayList<>();
        long before = 0;
        for (Sample sample : samples()) {
            for (long i = before; i < counter.applyAsLong(sample); i++) {
                times.add(sample.atMillis());
            }
            before = Math.max(before, counter.applyAsLong(sample));
        }
        return times;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    private void read() {
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            long at = System.currentTimeMillis();
            if (response.statusCode() != 200) {
                return;
            }
            JsonNode state = JSON.readTree(response.body());
            Sample sample = new Sample(at, state.path("admitted").asLong(), state.path("rateLimited").asLong(),
                    state.path("failed").asLong(), state.path("remainingTokens").asLong(-1));
            samples.add(sample);
            listeners.forEach(listener -> listener.accept(sample));
        } catch (IOException e) {
            // skipped: the next reading counts what this one missed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

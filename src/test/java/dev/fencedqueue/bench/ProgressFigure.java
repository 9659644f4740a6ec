package dev.fencedqueue.bench;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.core.JsonProcessingException;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.Worker;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * Figure 5: fenced progress events per second from one job. The processor publishes {@code count}
 * progress events (message {@code "event <i>"}), either pipelined (up to {@link #WINDOW} in flight,
 * subscribed in order) or awaiting each one; the clock runs inside the processor from the first call to
 * the last reply. Then the job's stream is read back to check that every event landed, in order.
 */
final class ProgressFigure {

    /** Most progress events one job keeps in flight when pipelining. */
    static final int WINDOW = 256;

    /**
     * @param eventsPerSecond progress events per second
     * @param inOrder whether the stream holds exactly the events, in the order they were published
     */
    record Result(double eventsPerSecond, boolean inOrder) {
    }

    private ProgressFigure() {
    }

    static Result measure(BenchContext bench, int count, boolean pipelined) {
        JobQueue queue = bench.freshQueue(pipelined ? "progress" : "progress-awaited");
        AtomicLong elapsed = new AtomicLong();
        Worker worker = bench.startWorker(BenchProcessor.of(queue.name(), context -> {
            long start = System.nanoTime();
            return publish(context, count, pipelined).invoke(() -> elapsed.set(System.nanoTime() - start))
                    .replaceWith((Object) null);
        }), 1);
        String jobId = queue.add("progress", null, JobOptions.defaults()).await().atMost(BenchContext.TIMEOUT).jobId();
        BenchContext.awaitCompleted(worker, 1);
        bench.stop(worker);
        List<JobEvent> events = bench.events().readAll(queue.keys(), jobId, null).await().atMost(BenchContext.TIMEOUT);
        return new Result(count * 1e9 / elapsed.get(), inOrder(bench, events, count));
    }

    /** How a processor publishes fast: many {@code progress} calls in flight, subscribed in order. */
    static Uni<Void> publish(JobContext context, int count, boolean pipelined) {
        Multi<String> sent = Multi.createFrom().range(0, count).onItem()
                .transformToUni(i -> context.progress(i * 100 / count, "event " + i))
                .merge(pipelined ? WINDOW : 1);
        return sent.collect().last().replaceWithVoid();
    }

    private static boolean inOrder(BenchContext bench, List<JobEvent> events, int count) {
        List<JobEvent> progress = events.stream().filter(event -> event.type().equals("progress")).toList();
        if (progress.size() != count) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            try {
                String message = bench.json().readTree(progress.get(i).data()).path("message").asText();
                if (!message.equals("event " + i)) {
                    return false;
                }
            } catch (JsonProcessingException e) {
                return false;
            }
        }
        return true;
    }
}

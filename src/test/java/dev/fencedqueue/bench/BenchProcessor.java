package dev.fencedqueue.bench;

import java.util.function.Function;

import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import io.smallrye.mutiny.Uni;

/** A processor for the benchmark: runs a given body, recording nothing itself (no per-attempt lists). */
final class BenchProcessor implements JobProcessor {

    private final String queue;
    private final Function<JobContext, Uni<Object>> body;

    private BenchProcessor(String queue, Function<JobContext, Uni<Object>> body) {
        this.queue = queue;
        this.body = body;
    }

    /** @return a processor whose jobs do nothing and complete at once with a {@code null} result */
    static BenchProcessor noop(String queue) {
        return new BenchProcessor(queue, context -> Uni.createFrom().nullItem());
    }

    /** @return a processor that runs {@code body} */
    static BenchProcessor of(String queue, Function<JobContext, Uni<Object>> body) {
        return new BenchProcessor(queue, body);
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public Uni<Object> process(JobContext context) {
        return body.apply(context);
    }
}

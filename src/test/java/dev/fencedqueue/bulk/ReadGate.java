package dev.fencedqueue.bulk;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiPredicate;

import dev.fencedqueue.worker.JobContext;

/**
 * Holds chosen chunk reads of a fan-out until the test releases them, so that a scenario puts its epochs and jobs
 * where it wants them however fast or slow the machine is. A sink's gated job passes {@link #beforeRead} ahead of
 * each read and {@link #afterRead} once it read; a hold stops one read, the first that matches it.
 */
final class ReadGate {

    /** One held read: reached by the first read that matches, then held until {@link #release()}. */
    static final class Hold {

        private final BiPredicate<JobContext, String> matches;
        private final AtomicBoolean taken = new AtomicBoolean();
        private final CompletableFuture<Long> reached = new CompletableFuture<>();
        private final CompletableFuture<Void> released = new CompletableFuture<>();

        private Hold(BiPredicate<JobContext, String> matches) {
            this.matches = matches;
        }

        /** @return whether a read got here and waits (or waited) */
        boolean isReached() {
            return reached.isDone();
        }

        /** @return the fencing token of the attempt whose read is held; only once {@link #isReached()} */
        long token() {
            return reached.join();
        }

        /** Lets the held read go on (or lets the next matching read pass, when none got here yet). */
        void release() {
            released.complete(null);
        }
    }

    /**
     * A sink's fan-out whose reads pass through a gate: what every sink's job has, delegated; a subclass per sink
     * gates its reads.
     *
     * @param <J> the sink's job type
     */
    abstract static class GatedJob<J extends ChunkedJob<String>> implements ChunkedJob<String> {

        protected final J delegate;
        protected final ReadGate gate;

        GatedJob(J delegate, ReadGate gate) {
            this.delegate = delegate;
            this.gate = gate;
        }

        @Override
        public String queue() {
            return delegate.queue();
        }

        @Override
        public ChunkPlan plan(JobContext job) {
            return delegate.plan(job);
        }

        @Override
        public String cursorAfter(String item) {
            return delegate.cursorAfter(item);
        }
    }

    private final AtomicReference<JobContext> firstReader = new AtomicReference<>();
    private final List<Hold> before = new CopyOnWriteArrayList<>();
    private final List<Hold> after = new CopyOnWriteArrayList<>();

    /** @return a hold of the first read matching {@code (attempt, cursor)}, before it reads */
    Hold holdBeforeRead(BiPredicate<JobContext, String> matches) {
        Hold hold = new Hold(matches);
        before.add(hold);
        return hold;
    }

    /** @return a hold of the first read matching {@code (attempt, cursor)}, once it read */
    Hold holdAfterRead(BiPredicate<JobContext, String> matches) {
        Hold hold = new Hold(matches);
        after.add(hold);
        return hold;
    }

    /** @return the fencing token of the first attempt that read through this gate (0 before any) */
    long firstToken() {
        JobContext first = firstReader.get();
        return first == null ? 0 : first.fencingToken();
    }

    /** @return the job of the first attempt that read through this gate ({@code null} before any) */
    String firstJobId() {
        JobContext first = firstReader.get();
        return first == null ? null : first.jobId();
    }

    /** @return completes when the read of {@code job} from {@code cursor} may start */
    CompletionStage<Void> beforeRead(JobContext job, String cursor) {
        firstReader.compareAndSet(null, job);
        return pass(before, job, cursor);
    }

    /** @return completes when the read of {@code job} from {@code cursor}, done, may return */
    CompletionStage<Void> afterRead(JobContext job, String cursor) {
        return pass(after, job, cursor);
    }

    /** Releases every hold, so that no read of a test outlives it. */
    void releaseAll() {
        before.forEach(Hold::release);
        after.forEach(Hold::release);
    }

    private static CompletionStage<Void> pass(List<Hold> holds, JobContext job, String cursor) {
        for (Hold hold : holds) {
            if (!hold.taken.get() && hold.matches.test(job, cursor) && hold.taken.compareAndSet(false, true)) {
                hold.reached.complete(job.fencingToken());
                return hold.released;
            }
        }
        return CompletableFuture.completedFuture(null);
    }
}

package dev.fencedqueue.testing;

import java.time.Duration;

/**
 * How long tests wait. A loaded 2-core CI machine can stall a whole process (GC, the host) for a second or two, so
 * no test bound is tighter than that; precise figures are the benchmarks' (JUnit tag {@code benchmark}).
 */
public final class Timeouts {

    /**
     * The longest a test waits for one step the system takes by itself: a job activated, an event written, a
     * connection closed, a reply. A few milliseconds on a quiet machine; 10 s leaves room for a loaded one, and stays
     * shorter than the {@link TestWorkers#DRAIN_DELAY} a test worker blocks on the marker, so that a worker that
     * missed its wake-up fails the wait instead of being rescued by its blocking pop's timeout.
     */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    /**
     * How late after its time something the product times (a delayed job's due time, a backoff, the end of a
     * rate-limit window) may start and still count as on time in a test: room for a stall of a second or two, and
     * far less than the {@link TestWorkers#DRAIN_DELAY} a worker that missed its timer would wait. How late it is
     * on a quiet machine is measured by {@code QueueBenchmark} (delayed-job lateness).
     */
    public static final Duration MAX_LATENESS = Duration.ofSeconds(5);

    /**
     * The longest a test waits for whole jobs of many steps to end: a research answer streamed token by token, a deep
     * research flow (its plan, its children's answers, its report), a flood of jobs. Seconds on a quiet machine; a
     * loaded one with other forks' tests beside it stretched a deep research job past {@link #TIMEOUT} (2026-11-29).
     */
    public static final Duration JOB_END = Duration.ofSeconds(60);

    /**
     * The longest a test waits for a whole fan-out to end: thousands of rows written chunk by chunk (into
     * PostgreSQL or Redis), each chunk a transaction of its own.
     */
    public static final Duration FAN_OUT_END = Duration.ofSeconds(30);

    /**
     * The longest a test waits for one step it watches in headless Chromium (a page loaded, its script run, an
     * event shown): the browser is a process tree of its own, which a loaded machine slows down more than this JVM.
     */
    public static final Duration BROWSER_STEP = Duration.ofSeconds(60);

    private Timeouts() {
    }
}

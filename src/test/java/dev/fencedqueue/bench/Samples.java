package dev.fencedqueue.bench;

import java.util.Arrays;

/** A fixed number of latency samples in nanoseconds, and their percentiles. Thread-safe. */
final class Samples {

    private final long[] nanos;
    private int size;

    Samples(int capacity) {
        this.nanos = new long[capacity];
    }

    synchronized void add(long value) {
        nanos[size++] = value;
    }

    synchronized int size() {
        return size;
    }

    /**
     * @param p the percentile, 0 to 100
     * @return the nearest-rank percentile, in milliseconds
     */
    synchronized double percentileMillis(double p) {
        long[] sorted = Arrays.copyOf(nanos, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(0, Math.min(size - 1, rank - 1))] / 1e6;
    }
}

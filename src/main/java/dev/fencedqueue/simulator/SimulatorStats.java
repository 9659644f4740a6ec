package dev.fencedqueue.simulator;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Counts the research streams the simulator served: opened, completed, and closed early by the client
 * (the connection closed before the summary was sent), in total and for the last 1,000 job ids, so that
 * a test can check that a zombie's LLM connection was really closed; and the most streams it served at once, as a
 * server with a fixed number of slots sees its load (vLLM's {@code num_requests_running}).
 */
@ApplicationScoped
public class SimulatorStats {

    private static final int TRACKED_JOBS = 1000;

    /**
     * Counters of one job id (or of all streams).
     *
     * @param opened streams started
     * @param completed streams that sent their summary and ended
     * @param closedEarly streams the client closed before the end
     */
    public record Counts(long opened, long completed, long closedEarly) {

        /** @return streams still running */
        public long active() {
            return opened - completed - closedEarly;
        }
    }

    /**
     * What {@code GET /simulator/stats} shows.
     *
     * @param total counters over all streams
     * @param peakActive the most streams running at once since startup
     * @param jobs counters per job id, for the most recent job ids
     */
    public record Snapshot(Counts total, long peakActive, Map<String, Counts> jobs) {
    }

    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong closedEarly = new AtomicLong();
    private long active;
    private long peakActive;
    private final Map<String, long[]> jobs = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
            return size() > TRACKED_JOBS;
        }
    };

    void opened(String jobId) {
        opened.incrementAndGet();
        count(jobId, 0, 1);
    }

    void completed(String jobId) {
        completed.incrementAndGet();
        count(jobId, 1, -1);
    }

    void closedEarly(String jobId) {
        closedEarly.incrementAndGet();
        count(jobId, 2, -1);
    }

    /** @return a copy of the counters */
    public synchronized Snapshot snapshot() {
        Map<String, Counts> perJob = new LinkedHashMap<>();
        jobs.forEach((id, c) -> perJob.put(id, new Counts(c[0], c[1], c[2])));
        return new Snapshot(new Counts(opened.get(), completed.get(), closedEarly.get()), peakActive, perJob);
    }

    private synchronized void count(String jobId, int index, int activeChange) {
        active += activeChange;
        peakActive = Math.max(peakActive, active);
        if (jobId != null) {
            jobs.computeIfAbsent(jobId, id -> new long[3])[index]++;
        }
    }
}

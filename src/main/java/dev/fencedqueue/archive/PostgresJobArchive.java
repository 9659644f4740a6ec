package dev.fencedqueue.archive;

import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.BlockingInvocation;
import dev.fencedqueue.config.ArchiveConfig;
import dev.fencedqueue.postgres.Database;
import dev.fencedqueue.postgres.DatabaseUnavailableException;
import dev.fencedqueue.queue.ArchivedJob;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.JobState;
import io.quarkus.cache.Cache;
import io.quarkus.cache.CacheName;
import io.quarkus.cache.CaffeineCache;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The archive in PostgreSQL ({@code job_archive}): active when {@code fq.archive.enabled} (the default) and a
 * datasource is configured. Reads run on a worker thread; a job read is kept a short while
 * ({@code quarkus.cache.caffeine."archived-jobs"}), since an SSE replay reads the same job a few times (its record,
 * its last id, its events). A job not found is never kept: it may be archived a moment later. A count of a queue's
 * archived jobs is kept a few seconds ({@code quarkus.cache.caffeine."archived-job-counts"}), since the console asks for
 * it with every refresh; the {@link Archiver} forgets a queue's counts when it moved jobs of that queue.
 */
@ApplicationScoped
public class PostgresJobArchive implements JobArchive {

    private static final String UNREADABLE = "finished jobs are kept in PostgreSQL, which cannot be read now; retry later";

    private final ArchiveTables tables;
    private final ArchiveListing listing;
    private final boolean active;
    private final CaffeineCache recent;
    private final Cache counts;
    private final ExecutorService blocking = Infrastructure.getDefaultWorkerPool();

    public PostgresJobArchive(Database database, ObjectMapper json, ArchiveConfig config,
            @CacheName("archived-jobs") Cache recent, @CacheName("archived-job-counts") Cache counts) {
        this.tables = new ArchiveTables(database, json);
        this.listing = new ArchiveListing(database, json);
        this.counts = counts;
        this.active = config.enabled() && database.isConfigured();
        this.recent = recent.as(CaffeineCache.class);
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public Uni<Optional<ArchivedJob>> find(String queue, String jobId) {
        if (!active) {
            return Uni.createFrom().item(Optional.empty());
        }
        String key = queue + "\u0000" + jobId;
        CompletableFuture<ArchivedJob> kept = recent.getIfPresent(key);
        if (kept != null) {
            return Uni.createFrom().completionStage(kept).map(Optional::of);
        }
        return BlockingInvocation.call(() -> tables.find(queue, jobId), blocking)
                .onFailure(SQLException.class).transform(e -> new DatabaseUnavailableException(UNREADABLE, e))
                .invoke(found -> found.ifPresent(job -> recent.put(key, CompletableFuture.completedFuture(job))));
    }

    @Override
    public Uni<List<Job>> finished(String queue, JobState state, long finishedBefore, int start, int count) {
        if (!active) {
            return Uni.createFrom().item(List.of());
        }
        return BlockingInvocation.call(() -> listing.page(queue, state, finishedBefore, start, count), blocking)
                .onFailure(SQLException.class).transform(e -> new DatabaseUnavailableException(UNREADABLE, e));
    }

    @Override
    public Uni<Long> countFinished(String queue, JobState state) {
        if (state != JobState.COMPLETED && state != JobState.FAILED) {
            throw new IllegalArgumentException("the archive holds completed and failed jobs, not " + state.value()
                    + " ones");
        }
        if (!active) {
            return Uni.createFrom().item(0L);
        }
        return counts.getAsync(countKey(queue, state), key -> BlockingInvocation.call(() -> listing.count(queue, state),
                blocking)).onFailure(SQLException.class).transform(e -> new DatabaseUnavailableException(UNREADABLE, e));
    }

    /**
     * Forgets the counts kept of a queue's archived jobs: the archiver moved some of its jobs.
     *
     * @param queue the queue
     * @return completes once forgotten
     */
    Uni<Void> countsChanged(String queue) {
        return counts.invalidate(countKey(queue, JobState.COMPLETED))
                .chain(() -> counts.invalidate(countKey(queue, JobState.FAILED)));
    }

    private static String countKey(String queue, JobState state) {
        return queue + "\u0000" + state.value();
    }

    /** @return the archive's table, for the archiver */
    ArchiveTables tables() {
        return tables;
    }
}

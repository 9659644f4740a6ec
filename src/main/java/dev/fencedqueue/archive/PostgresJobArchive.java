package dev.fencedqueue.archive;

import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.BlockingInvocation;
import dev.fencedqueue.bulk.Database;
import dev.fencedqueue.bulk.DatabaseUnavailableException;
import dev.fencedqueue.config.ArchiveConfig;
import dev.fencedqueue.queue.ArchivedJob;
import dev.fencedqueue.queue.JobArchive;
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
 * its last id, its events). A job not found is never kept: it may be archived a moment later.
 */
@ApplicationScoped
public class PostgresJobArchive implements JobArchive {

    private final ArchiveTables tables;
    private final boolean active;
    private final CaffeineCache recent;
    private final ExecutorService blocking = Infrastructure.getDefaultWorkerPool();

    public PostgresJobArchive(Database database, ObjectMapper json, ArchiveConfig config,
            @CacheName("archived-jobs") Cache recent) {
        this.tables = new ArchiveTables(database, json);
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
                .onFailure(SQLException.class).transform(e -> new DatabaseUnavailableException(
                        "finished jobs are kept in PostgreSQL, which cannot be read now; retry later", e))
                .invoke(found -> found.ifPresent(job -> recent.put(key, CompletableFuture.completedFuture(job))));
    }

    /** @return the archive's table, for the archiver */
    ArchiveTables tables() {
        return tables;
    }
}

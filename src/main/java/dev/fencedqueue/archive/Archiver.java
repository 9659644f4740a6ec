package dev.fencedqueue.archive;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import dev.fencedqueue.BlockingInvocation;
import dev.fencedqueue.Failures;
import dev.fencedqueue.config.ArchiveConfig;
import dev.fencedqueue.queue.ArchivedJob;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.worker.WorkerManager;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Moves finished jobs from Redis to the archive, a grace period ({@code fq.archive.grace}) after they ended, every
 * {@code fq.archive.interval}, for each queue this service processes; drops the archive's day partitions older than
 * {@code fq.archive.keep-for}. Each job is written to PostgreSQL first (committed, exactly once: the table's primary
 * key makes any further write of the same finishing a no-op) and only then dropped from Redis, so that a crash, a
 * Redis restart or a PostgreSQL outage at any point loses nothing and archives nothing twice: what was not dropped is
 * found again and moved on a later round. One instance per queue and interval does the work (a Redis key set with
 * {@code NX PX}: spares the others the same reads; correctness does not depend on it).
 */
@Startup
@ApplicationScoped
public class Archiver {

    private static final Logger LOG = Logger.getLogger(Archiver.class);
    /**
     * Most batches one queue moves per round, so that a backlog (PostgreSQL was down for hours) does not hold the other
     * queues back for long: 2,000 jobs a round at the default batch, 400 a second at the default interval.
     */
    private static final int BATCHES_PER_ROUND = 100;
    /** How often old partitions are looked for. */
    private static final Duration PARTITION_CHECK = Duration.ofMinutes(10);

    private final Queues queues;
    private final SharedConnection redis;
    private final WorkerManager workers;
    private final ArchiveConfig config;
    private final PostgresJobArchive archive;
    private final ArchiveTables tables;
    private final FinishedJobs finished;
    private final Vertx vertx;
    private final Counter moved;
    private final ExecutorService blocking = Infrastructure.getDefaultWorkerPool();
    private final AtomicBoolean running = new AtomicBoolean();
    private final String instance = UUID.randomUUID().toString();
    private final long timer;
    private volatile boolean failing;
    private volatile Instant partitionsChecked = Instant.EPOCH;

    public Archiver(PostgresJobArchive archive, Queues queues, SharedConnection redis, LuaScripts scripts,
            WorkerManager workers, ArchiveConfig config, Vertx vertx, MeterRegistry registry) {
        this.queues = queues;
        this.redis = redis;
        this.workers = workers;
        this.config = config;
        this.archive = archive;
        this.tables = archive.tables();
        this.finished = new FinishedJobs(redis, scripts);
        this.vertx = vertx;
        this.moved = Counter.builder("fq_archive_moved_jobs").description("finished jobs moved from Redis to the archive")
                .register(registry);
        this.timer = archive.isActive()
                ? vertx.setPeriodic(config.interval().toMillis(), id -> round(config.grace(), true)) : -1;
        if (archive.isActive()) {
            LOG.infof("finished jobs move to PostgreSQL %s after they end; the archive keeps them %s",
                    config.grace(), config.keepFor());
        }
    }

    /**
     * Runs one round now, for every queue this service processes, whichever instance's turn it is (the timer runs one
     * every {@code fq.archive.interval} with {@code fq.archive.grace}, for the queues whose turn this instance takes);
     * does nothing while another round runs here.
     *
     * @param grace how long a job stays in Redis after it finished, must not be {@code null}
     * @return how many jobs this round moved; fails as Redis or PostgreSQL fail (the jobs not moved stay in Redis)
     */
    public Uni<Integer> round(Duration grace) {
        return round(grace, false);
    }

    /** @param claimed whether to move only the queues whose turn this instance takes this interval */
    private Uni<Integer> round(Duration grace, boolean claimed) {
        if (timer < 0 || !running.compareAndSet(false, true)) {
            return Uni.createFrom().item(0);
        }
        Uni<Integer> round = Multi.createFrom().iterable(workers.processedQueues())
                .onItem().transformToUniAndConcatenate(queue -> (claimed ? claim(queues.keys(queue))
                        : Uni.createFrom().item(true))
                        .chain(mine -> mine ? moveDue(queues.keys(queue), grace, BATCHES_PER_ROUND)
                                : Uni.createFrom().item(0)))
                .collect().with(Collectors.summingInt(Integer::intValue))
                .call(this::dropOldPartitions)
                .invoke(count -> {
                    if (failing) {
                        LOG.info("the archive (PostgreSQL) is written again: finished jobs move out of Redis");
                        failing = false;
                    }
                })
                .onFailure().invoke(failure -> {
                    if (!failing) {
                        LOG.warnf("finished jobs stay in Redis until they can be archived (tried again every %s): %s",
                                config.interval(), Failures.describe(failure));
                        failing = true;
                    }
                })
                .eventually(() -> running.set(false))
                .memoize().indefinitely();
        round.subscribe().with(count -> {
        }, failure -> {
        });
        return round;
    }

    /** @return whether this instance moves the queue's jobs this interval */
    private Uni<Boolean> claim(QueueKeys keys) {
        return redis.send(Request.cmd(Command.SET).arg(keys.prefix() + "archiver").arg(instance).arg("NX")
                .arg("PX").arg(config.interval().toMillis())).map(reply -> reply != null)
                .onFailure().recoverWithItem(false);
    }

    private Uni<Integer> moveDue(QueueKeys keys, Duration grace, int batchesLeft) {
        return finished.due(keys, grace.toMillis(), config.batch()).chain(ids -> {
            if (ids.isEmpty()) {
                return Uni.createFrom().item(0);
            }
            Uni<List<Optional<ArchivedJob>>> read = Multi.createFrom().iterable(ids)
                    .onItem().transformToUniAndMerge(id -> finished.read(keys, id)).collect().asList();
            return read.chain(all -> {
                List<ArchivedJob> jobs = all.stream().flatMap(Optional::stream).toList();
                return BlockingInvocation.call(() -> tables.insert(jobs), blocking)
                        .chain(() -> Multi.createFrom().iterable(jobs).onItem()
                                .transformToUniAndMerge(job -> finished.drop(keys, job)).collect().asList())
                        .map(drops -> (int) drops.stream().filter(code -> code == 1).count())
                        // Counted again on the next read: the moved jobs are in the archive's count, not in Redis's.
                        .call(() -> archive.countsChanged(keys.queue()))
                        // Ids whose job was gone or not finished: dropped from the sets, not counted.
                        .call(() -> Multi.createFrom().iterable(ids).filter(id -> jobs.stream()
                                .noneMatch(job -> job.jobId().equals(id))).onItem()
                                .transformToUniAndMerge(id -> finished.forget(keys, id)).collect().asList());
            }).invoke(count -> moved.increment(count)).chain(count -> ids.size() < config.batch() || batchesLeft <= 1
                    ? Uni.createFrom().item(count) : moveDue(keys, grace, batchesLeft - 1).map(more -> count + more));
        });
    }

    private Uni<Void> dropOldPartitions() {
        Instant now = Instant.now();
        if (now.isBefore(partitionsChecked.plus(PARTITION_CHECK))) {
            return Uni.createFrom().voidItem();
        }
        partitionsChecked = now;
        return BlockingInvocation.call(() -> tables.dropBefore(now.minus(config.keepFor())), blocking)
                .invoke(dropped -> {
                    if (!dropped.isEmpty()) {
                        LOG.infof("dropped the archive's partitions older than %s: %s", config.keepFor(), dropped);
                    }
                }).replaceWithVoid();
    }

    @PreDestroy
    void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }
}

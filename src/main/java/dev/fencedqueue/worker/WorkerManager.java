package dev.fencedqueue.worker;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.CostUnit;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.RedisMemory;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.telemetry.WorkerMetrics;
import dev.fencedqueue.tracing.JobTracing;
import io.quarkus.arc.All;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.virtual.threads.VirtualThreads;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import org.jboss.logging.Logger;

/**
 * Creates and stops workers: at startup one worker per {@link JobProcessor} bean and one for the no-op queue
 * when {@code fq.worker.noop-queue} names one (unless {@code fq.worker.enabled=false}), and on demand through
 * {@link #create}. The workers started here take jobs only while Redis's {@code maxmemory-policy} allows
 * ({@link RedisMemory#onWorkPermitted}): they start paused until Redis was read, and pause while it may evict keys.
 * Every {@link WorkerListener} bean is told about every worker created here; the {@link ChildJobs} bean gives their
 * jobs their children.
 */
@ApplicationScoped
public class WorkerManager {

    private static final Logger LOG = Logger.getLogger(WorkerManager.class);

    private final WorkerConfig config;
    private final Queues queues;
    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final ObjectMapper json;
    private final JobTracing tracing;
    private final JobArchive archive;
    private final int maxStreamLength;
    private final int maxQueueEvents;
    private final WorkerListener listener;
    private final Worker.Hooks hooks;
    private final ChildJobs children;
    private final RevocationListener revocations;
    private final WorkerMetrics metrics;
    private final Instance<JobProcessor> processors;
    private final Instance<ExecutorService> virtualThreads;
    private final RedisMemory memory;
    private final String instanceId;
    private final List<Worker> workers = new CopyOnWriteArrayList<>();
    private final AtomicBoolean shuttingDown = new AtomicBoolean();
    /** The workers started here that are paused because Redis's policy does not permit work (or is not known yet). */
    private final Set<Worker> heldBack = ConcurrentHashMap.newKeySet();
    private boolean workPermitted;

    /**
     * @param config the workers' options ({@code fq.worker.*})
     * @param queues the registry of queues: the key layout of each worker's queue
     * @param scripts the script registry
     * @param redis the shared connection, on whose event loop the workers live
     * @param json Jackson
     * @param tracing the spans of jobs ({@link JobTracing#noop()} while tracing is off)
     * @param archive where finished jobs go once Redis no longer keeps them ({@link JobArchive#NONE} for nowhere)
     * @param events the stream bounds ({@code fq.events.*})
     * @param listeners the features told about every worker created here
     * @param children what the workers' jobs do with their children (flows)
     * @param revocations delivers revoke notices to the workers
     * @param metrics publishes the workers' counters
     * @param processors the {@link JobProcessor} beans, one worker each at startup
     * @param virtualThreads where blocking processors run on a JDK 21+
     * @param memory tells whether Redis's policy permits work
     */
    public WorkerManager(WorkerConfig config, Queues queues, LuaScripts scripts, SharedConnection redis,
            ObjectMapper json, JobTracing tracing, JobArchive archive, EventsConfig events,
            @All List<WorkerListener> listeners, ChildJobs children, RevocationListener revocations,
            WorkerMetrics metrics, Instance<JobProcessor> processors,
            @VirtualThreads Instance<ExecutorService> virtualThreads, RedisMemory memory) {
        this.config = config;
        this.queues = queues;
        this.scripts = scripts;
        this.redis = redis;
        this.json = json;
        this.tracing = tracing;
        this.archive = archive;
        this.maxStreamLength = events.maxStreamLength();
        this.maxQueueEvents = events.queueStreamMaxLength();
        this.listener = WorkerListener.all(listeners);
        this.hooks = new Worker.Hooks(listener::started, listener::stopping, listener::ended, listener::stalledChecked);
        this.children = children;
        this.revocations = revocations;
        this.metrics = metrics;
        this.processors = processors;
        this.virtualThreads = virtualThreads;
        this.memory = memory;
        this.instanceId = config.id().orElseGet(WorkerManager::defaultId);
    }

    void start(@Observes @Priority(10) StartupEvent event) {
        WorkerConfig.check(config.lock());
        if (!config.enabled()) {
            LOG.info("workers are disabled (fq.worker.enabled=false): this instance only serves the API");
            return;
        }
        for (JobProcessor processor : processors) {
            startWhenPermitted(create(processor, WorkerOptions.from(config, instanceId)));
        }
        config.noopQueue().filter(queue -> !queue.isBlank()).ifPresent(queue -> {
            LOG.infof("serving the no-op queue %s (fq.worker.noop-queue): its jobs complete at once", queue);
            startWhenPermitted(create(new NoopProcessor(queue), WorkerOptions.from(config, instanceId)));
        });
        memory.onWorkPermitted(this::permitWork);
    }

    private synchronized void startWhenPermitted(Worker worker) {
        if (!workPermitted) {
            heldBack.add(worker);
            pause(worker);
        }
        worker.start();
    }

    /** Pauses the workers started here while Redis's policy does not permit work, and resumes them once it does. */
    private synchronized void permitWork(boolean permitted) {
        workPermitted = permitted;
        if (permitted) {
            heldBack.forEach(Worker::resume);
            heldBack.clear();
        } else {
            workers.stream().filter(heldBack::add).forEach(WorkerManager::pause);
        }
    }

    private static void pause(Worker worker) {
        worker.pause(false).subscribe().with(paused -> {
        }, failure -> LOG.warnf("could not pause worker %s: %s", worker.id(), Failures.describe(failure)));
    }

    /**
     * SIGTERM with {@code quarkus.shutdown.delay-enabled}: readiness is DOWN from here on (Quarkus's own
     * check and {@link #isShuttingDown()}), and the workers stop at once, handing their jobs back.
     */
    void preShutdown(@Observes ShutdownDelayInitiatedEvent event) {
        stopAll();
    }

    void stop(@Observes ShutdownEvent event) {
        stopAll();
    }

    /** @return whether this instance began to shut down (its workers no longer take jobs) */
    public boolean isShuttingDown() {
        return shuttingDown.get();
    }

    private void stopAll() {
        if (!shuttingDown.compareAndSet(false, true) || workers.isEmpty()) {
            return;
        }
        LOG.infof("shutting down %d worker(s): %s", workers.size(), config.shutdown().mode());
        Uni.join().all(workers.stream().map(this::stop).toList()).andCollectFailures()
                .onFailure().invoke(failure -> LOG.warnf("a worker did not stop cleanly: %s", Failures.describe(failure)))
                .onFailure().recoverWithNull()
                .await().atMost(config.shutdown().drainTimeout().plus(Duration.ofSeconds(5)));
    }

    /**
     * Creates a worker (not started) for a processor, registered for revoke notices; the {@link WorkerListener}s are
     * told ({@link WorkerListener#created}).
     *
     * @param processor the processor, must not be {@code null}
     * @param options the worker options, must not be {@code null}
     * @return the worker; call {@link Worker#start()} to start it and {@link #stop(Worker)} to stop it
     */
    public Worker create(JobProcessor processor, WorkerOptions options) {
        Worker worker = new Worker(queues.keys(processor.queue()), processor,
                processor.isBlocking() ? blockingExecutor() : null, options, hooks, children, scripts, redis, json,
                tracing, archive, maxStreamLength, maxQueueEvents);
        revocations.register(worker);
        metrics.bind(worker.queue(), worker.id(), worker.counters());
        listener.created(worker);
        workers.add(worker);
        return worker;
    }

    /**
     * Stops a worker created here; then the {@link WorkerListener}s are told ({@link WorkerListener#stopped}).
     *
     * @param worker the worker
     * @return completes when it stopped
     */
    public Uni<Void> stop(Worker worker) {
        workers.remove(worker);
        heldBack.remove(worker);
        revocations.unregister(worker);
        metrics.unbind(worker.counters());
        return worker.close().call(() -> listener.stopped(worker));
    }

    /**
     * Where blocking processors (and the blocking steps of chunked jobs) run: virtual threads on a JDK 21+
     * unless {@code fq.worker.virtual-threads} is {@code false}, else Quarkus's worker pool
     * ({@code quarkus.thread-pool.max-threads} threads at most).
     *
     * @return the executor; never the event loop
     */
    public ExecutorService blockingExecutor() {
        if (config.virtualThreads() && Runtime.version().feature() >= 21) {
            return virtualThreads.get();
        }
        return Infrastructure.getDefaultWorkerPool();
    }

    /** @return the cost unit of each queue of this service's {@link JobProcessor} beans, by queue name */
    public Map<String, CostUnit> costUnits() {
        Map<String, CostUnit> units = new TreeMap<>();
        for (JobProcessor processor : processors) {
            units.put(processor.queue(), processor.costUnit());
        }
        return units;
    }

    /**
     * @return the queues this service has a processor for: its {@link JobProcessor} beans' (whether or not this
     *         instance runs workers: every instance of the service has the same), the no-op queue, and the queues of
     *         the workers created here
     */
    public Set<String> processedQueues() {
        Set<String> names = new TreeSet<>();
        for (JobProcessor processor : processors) {
            names.add(processor.queue());
        }
        config.noopQueue().filter(queue -> !queue.isBlank()).ifPresent(names::add);
        workers.forEach(worker -> names.add(worker.queue()));
        return names;
    }

    /**
     * @param queue a queue name
     * @return the processor this service has for the queue: a {@link JobProcessor} bean's, else the processor of a
     *         worker created here (the no-op queue's included); empty when none
     */
    public Optional<JobProcessor> processor(String queue) {
        for (JobProcessor processor : processors) {
            if (processor.queue().equals(queue)) {
                return Optional.of(processor);
            }
        }
        return workers.stream().filter(worker -> worker.queue().equals(queue)).map(Worker::processor).findFirst();
    }

    /** @return the workers currently managed */
    public List<Worker> workers() {
        return List.copyOf(workers);
    }

    /** @return the worker id of this instance ({@code fq.worker.id}, or host name plus a random suffix) */
    public String instanceId() {
        return instanceId;
    }

    /**
     * The processor of the no-op queue ({@code fq.worker.noop-queue}): completes every job at once, without
     * reading its data, with a {@code null} result. What such a job costs is the queue's own work: activation,
     * lock, fencing token and completion, in Redis and in the worker.
     */
    private static final class NoopProcessor implements JobProcessor {

        private static final Uni<Object> DONE = Uni.createFrom().nullItem();

        private final String queue;

        /** @param queue the queue to serve, must not be {@code null} */
        NoopProcessor(String queue) {
            this.queue = queue;
        }

        @Override
        public String queue() {
            return queue;
        }

        @Override
        public Uni<Object> process(JobContext context) {
            return DONE;
        }
    }

    private static String defaultId() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "worker";
            }
        }
        return host + "-" + UUID.randomUUID().toString().substring(0, 6);
    }
}

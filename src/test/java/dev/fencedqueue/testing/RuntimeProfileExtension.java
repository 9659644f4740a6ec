package dev.fencedqueue.testing;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.fencedqueue.worker.WorkerConfig;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.tenancy.FairDispatchSync;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import dev.fencedqueue.worker.WorkerOptions;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ArcContainer;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/** Applies a {@link RuntimeProfile} before a test class's first test and undoes it after its last. */
public class RuntimeProfileExtension implements BeforeAllCallback, AfterAllCallback {

    private static final String WORKERS = "fq.worker.enabled";
    /**
     * The settings of {@code fq.llm.*} that are read per call, not when the client is built at startup; the protocol,
     * chosen once at startup, is followed per call in the tests ({@link SwitchableConfig}).
     */
    private static final Set<String> LLM = Set.of("protocol", "model", "api-key", "request.system-prompt",
            "request.max-tokens", "request.temperature", "stream.delta-interval", "stream.delta-chars",
            "stream.max-chars", "resume.mode", "request.tools", "request.reasoning-summary", "resume.poll-interval",
            "resume.queued-timeout", "price.input", "price.output");
    /** The settings of {@code fq.worker.*} that the workers a test creates read ({@link WorkerOptions#from}). */
    private static final Set<String> WORKER = Set.of("lock.duration", "lock.renew-interval", "stalled.interval",
            "stalled.max-count", "concurrency", "drain-delay");
    /** The settings of {@code fq.bulk.*} that are read per request or per job. */
    private static final Set<String> BULK = Set.of("single-flight", "single-flight-retry", "chunk-size");
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
            .create(RuntimeProfileExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Class<?> testClass = context.getRequiredTestClass();
        if (AnnotationSupport.isAnnotated(testClass, QuarkusIntegrationTest.class)) {
            return;
        }
        RuntimeProfile profile = AnnotationSupport.findAnnotation(testClass, RuntimeProfile.class).orElseThrow();
        Map<String, String> settings = new HashMap<>(profile.value().getDeclaredConstructor().newInstance()
                .getConfigOverrides());
        List<String> fixed = settings.entrySet().stream().filter(setting -> !switchable(setting.getKey(),
                setting.getValue())).map(Map.Entry::getKey).sorted().toList();
        if (!fixed.isEmpty()) {
            throw new IllegalStateException(testClass.getSimpleName() + ": " + profile.value().getSimpleName() + " sets "
                    + fixed + ", which the application reads once at startup: run the class with @TestProfile instead");
        }
        ArcContainer arc = Arc.container();
        if (arc == null || !arc.isRunning()) {
            throw new IllegalStateException(testClass.getSimpleName() + ": @RuntimeProfile needs the application "
                    + "running: put it after @QuarkusTest");
        }
        boolean workersOff = "false".equals(settings.remove(WORKERS));
        arc.instance(SwitchableConfig.class).get().override(settings);
        syncCostUnits(arc);
        if (workersOff) {
            context.getStore(NAMESPACE).put(WORKERS, stopServiceWorkers(arc));
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ArcContainer arc = Arc.container();
        if (arc == null || AnnotationSupport.isAnnotated(context.getRequiredTestClass(), QuarkusIntegrationTest.class)) {
            return;
        }
        arc.instance(SwitchableConfig.class).get().reset();
        syncCostUnits(arc);
        @SuppressWarnings("unchecked")
        Set<String> queues = context.getStore(NAMESPACE).remove(WORKERS, Set.class);
        if (queues != null) {
            startServiceWorkers(arc, queues);
        }
    }

    /**
     * Writes the served queues' cost units again: the research queue's follows the LLM protocol (tokens, or slot time
     * in the {@code research} protocol), which the application otherwise writes at startup and every 30 s. A Redis
     * that a class stopped or cut off only leaves that to the next periodic write.
     */
    private static void syncCostUnits(ArcContainer arc) {
        arc.instance(FairDispatchSync.class).get().syncCostUnits()
                .ifNoItem().after(Duration.ofSeconds(5)).recoverWithItem((Void) null)
                .onFailure().recoverWithNull()
                .await().indefinitely();
    }

    /** @return whether the application reads {@code key} while it runs (and, for {@value #WORKERS}, {@code value}) */
    static boolean switchable(String key, String value) {
        if (key.equals(WORKERS)) {
            return "false".equals(value);
        }
        if (key.startsWith("fq.simulator.")) {
            return !key.equals("fq.simulator.enabled");
        }
        if (key.startsWith("fq.llm.")) {
            return LLM.contains(key.substring("fq.llm.".length()));
        }
        if (key.startsWith("fq.bulk.")) {
            return BULK.contains(key.substring("fq.bulk.".length()));
        }
        if (key.startsWith("fq.tenancy.")) {
            // Read on every request; `principal` is checked at startup (verifiable tokens), so a test switches to it
            // only in an application whose profile set up JWT verification.
            return true;
        }
        return key.startsWith("fq.worker.") && WORKER.contains(key.substring("fq.worker.".length()));
    }

    /**
     * Stops the service's own workers (they hand their jobs back) and drains their queues: the class starts with none of
     * the jobs earlier classes left there, which its own workers would otherwise take.
     *
     * @return the queues of those workers
     */
    private static Set<String> stopServiceWorkers(ArcContainer arc) {
        WorkerManager manager = arc.instance(WorkerManager.class).get();
        Set<String> queues = processors(arc).keySet();
        List<Worker> own = manager.workers();
        for (Worker worker : own) {
            if (!queues.contains(worker.queue())) {
                throw new IllegalStateException("the service's worker on queue " + worker.queue() + " has no "
                        + "processor bean to start it again with (fq.worker.noop-queue?): use @TestProfile");
            }
            manager.stop(worker).await().atMost(Timeouts.TIMEOUT);
        }
        Set<String> stopped = own.stream().map(Worker::queue).collect(Collectors.toSet());
        drain(arc, stopped);
        return stopped;
    }

    /**
     * Starts the service's workers on {@code queues} again, as it does at startup, once the jobs the class left there
     * are drained.
     */
    private static void startServiceWorkers(ArcContainer arc, Set<String> queues) {
        drain(arc, queues);
        WorkerManager manager = arc.instance(WorkerManager.class).get();
        WorkerConfig config = arc.instance(WorkerConfig.class).get();
        processors(arc).forEach((queue, processor) -> {
            if (queues.contains(queue)) {
                manager.create(processor, WorkerOptions.from(config, manager.instanceId())).start();
            }
        });
    }

    /** Removes the jobs waiting (or delayed) in {@code queues}. */
    private static void drain(ArcContainer arc, Set<String> queues) {
        Queues all = arc.instance(Queues.class).get();
        for (String queue : queues) {
            all.queue(queue).maintenance().drain(true).await().atMost(Timeouts.TIMEOUT);
        }
    }

    private static Map<String, JobProcessor> processors(ArcContainer arc) {
        Map<String, JobProcessor> byQueue = new HashMap<>();
        arc.select(JobProcessor.class).forEach(processor -> byQueue.put(processor.queue(), processor));
        return byQueue;
    }
}

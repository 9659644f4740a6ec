package dev.fencedqueue.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.events.JobEventStore;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.worker.WorkerManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** Makes {@link BenchContext}, the service beans the benchmarks use, injectable into them. */
@ApplicationScoped
class BenchContextProducer {

    @Produces
    @Singleton
    BenchContext bench(Queues queues, WorkerManager workers, SharedConnection redis, LuaScripts scripts,
            JobEventStore events, ObjectMapper json) {
        return new BenchContext(queues, workers, redis, scripts, events, json);
    }
}

package dev.fencedqueue.events;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.ArchivedJob;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * Reads the entries of a job's event stream ({@code XRANGE} and {@code XREAD} replies) back as events
 * ({@link StoredEvent}). An answer delta does not store its worker: the first time a reader meets a run's deltas it
 * asks the job hash for the run's worker ({@code HMGET} of {@code worker:<token>}, one command for every run it does
 * not know yet) and keeps it in the caller's map.
 */
public final class EntryReader {

    /** The prefix of the job hash's field that names the worker of a run: {@code worker:<fencing token>}. */
    private static final String WORKER = "worker:";

    private EntryReader() {
    }

    /** One entry as Redis holds it. */
    private record Raw(String id, long token, StoredEvent.Entry entry) {

        static Raw of(Response element) {
            return of(element.get(0).toString(), Replies.toStringMap(element.get(1)));
        }

        static Raw of(String id, Map<String, String> fields) {
            return new Raw(id, Long.parseLong(fields.getOrDefault("token", "0")), StoredEvent.entry(fields));
        }

        JobEvent event(Map<Long, String> workers, ObjectMapper json) {
            return new JobEvent(id, entry.type(), token,
                    StoredEvent.read(entry.type(), token, entry.data(), entry.text(), workers.get(token), json));
        }
    }

    /**
     * @param job an archived job
     * @param entries entries of its stream ({@link ArchivedJob#events()}), in stream order
     * @param json the application's object mapper, which reads the entries' data
     * @return the events, read back with the workers of the job's runs as its archived hash holds them
     */
    static List<JobEvent> archived(ArchivedJob job, List<ArchivedJob.StreamEntry> entries, ObjectMapper json) {
        Map<Long, String> workers = new HashMap<>();
        job.hash().forEach((field, value) -> {
            if (field.startsWith(WORKER)) {
                workers.put(Long.parseLong(field.substring(WORKER.length())), value);
            }
        });
        return entries.stream().map(entry -> Raw.of(entry.id(), entry.fields()).event(workers, json)).toList();
    }

    /**
     * @param redis where to ask for the workers of runs not in {@code workers}
     * @param keys the queue's key layout
     * @param jobId the job whose stream the entries are of
     * @param entries the entries, each {@code [id, [field, value, ...]]}, in stream order
     * @param workers the workers of the job's runs known so far, by fencing token; the ones asked for are added (the
     *        caller's to keep, or a new map each time; thread-safe when it is read and written on several threads)
     * @param json the application's object mapper, which reads the entries' data
     * @return the events in the order of {@code entries}; fails as Redis fails when a worker had to be asked for
     */
    public static Uni<List<JobEvent>> events(SharedConnection redis, QueueKeys keys, String jobId, List<Response> entries,
            Map<Long, String> workers, ObjectMapper json) {
        List<Raw> raws = new ArrayList<>(entries.size());
        Set<Long> unknown = new LinkedHashSet<>();
        for (Response element : entries) {
            Raw raw = Raw.of(element);
            raws.add(raw);
            if (raw.entry().isAnswerDelta() && !workers.containsKey(raw.token())) {
                unknown.add(raw.token());
            }
        }
        if (unknown.isEmpty()) {
            return Uni.createFrom().item(() -> raws.stream().map(raw -> raw.event(workers, json)).toList());
        }
        Request request = Request.cmd(Command.HMGET).arg(keys.job(jobId));
        unknown.forEach(token -> request.arg(WORKER + token));
        return redis.send(request).map(reply -> {
            int i = 0;
            for (Long token : unknown) {
                Response worker = reply == null ? null : reply.get(i++);
                if (worker != null) {
                    workers.put(token, worker.toString());
                }
            }
            return raws.stream().map(raw -> raw.event(workers, json)).toList();
        });
    }
}

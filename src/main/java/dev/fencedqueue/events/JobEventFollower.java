package dev.fencedqueue.events;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.config.EventsConfig;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobQueue;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Builds the SSE stream of a job for one subscriber: it replays the job's stream (from the start, or
 * after the client's {@code Last-Event-ID} as the SSE specification defines), then follows it live
 * through the shared tailer, shows one epoch at a time (a {@code reset} before a newer epoch, older
 * epochs dropped), sends a keep-alive comment while idle, and ends after the terminal event.
 */
@ApplicationScoped
public class JobEventFollower {

    private final JobEventStore store;
    private final JobEventTailers tailers;
    private final Duration keepAlive;

    public JobEventFollower(JobEventStore store, JobEventTailers tailers, EventsConfig config) {
        this.store = store;
        this.tailers = tailers;
        this.keepAlive = config.keepAlive();
    }

    /**
     * Prepares a subscriber's stream. The {@code Uni} does everything that can fail before the first byte
     * is sent; the {@code Multi} it emits is the stream itself.
     *
     * @param queue the job's queue
     * @param jobId the job id
     * @param lastEventId the client's {@code Last-Event-ID} header, or {@code null}; an id that is not a
     *        stream entry id is ignored (the stream replays from the start)
     * @return the stream; fails with {@link dev.fencedqueue.queue.JobNotFoundException} when there is no
     *         such job, and with {@link dev.fencedqueue.queue.RedisUnavailableException} when Redis is down
     */
    public Uni<Multi<StreamMessage>> follow(JobQueue queue, String jobId, String lastEventId) {
        String resumeAfter = StreamIds.isValid(lastEventId) ? lastEventId : null;
        return queue.requireJob(jobId).chain(job -> tailers.follow(queue, jobId).chain(feed -> {
            Uni<Long> clientEpoch = resumeAfter == null ? Uni.createFrom().item(-1L)
                    : store.entry(queue.keys(), jobId, resumeAfter).map(entry -> entry == null ? -1L : entry.fencingToken());
            return clientEpoch.chain(epoch -> store.readAll(queue.keys(), jobId, resumeAfter)
                    .map(replay -> stream(job, epoch, resumeAfter, replay, feed)))
                    .onFailure().invoke(feed::close);
        }));
    }

    /**
     * Tells whether a client that reconnects with {@code lastEventId} has already seen the end of the job:
     * the job has ended and its stream holds nothing after that id (a finished job's stream ends with its
     * terminal event: the fence rejects every later write), read with one {@code XREVRANGE ... COUNT 1}.
     * Such a client is best answered {@code 204 No Content}, which per the SSE specification (HTML Living
     * Standard, "Server-sent events") makes an {@code EventSource} stop reconnecting.
     *
     * @param queue the job's queue
     * @param jobId the job id
     * @param lastEventId the client's {@code Last-Event-ID}, a stream entry id
     * @return whether nothing is left to send; fails with {@link dev.fencedqueue.queue.JobNotFoundException}
     *         when there is no such job, and with {@link dev.fencedqueue.queue.RedisUnavailableException} when
     *         Redis is down
     */
    public Uni<Boolean> hasEndedFor(JobQueue queue, String jobId, String lastEventId) {
        return queue.requireJob(jobId).chain(job -> job.state().isTerminal()
                ? store.lastId(queue.keys(), jobId).map(lastId -> StreamIds.compare(lastId, lastEventId) <= 0)
                : Uni.createFrom().item(false));
    }

    private Multi<StreamMessage> stream(Job job, long clientEpoch, String resumeAfter, List<JobEvent> replay,
            LiveFeed feed) {
        // Once epoch T is current no event of an older epoch can be appended, so older ones are history.
        List<JobEvent> current = replay.stream().filter(e -> e.fencingToken() >= job.fencingToken()).toList();
        boolean seenEnd = current.stream().anyMatch(JobEvent::isTerminal);
        if (job.state().isTerminal() && !seenEnd) {
            feed.close();
            return Multi.createFrom().empty();
        }
        String replayEnd = replay.isEmpty() ? (resumeAfter == null ? "0-0" : resumeAfter) : replay.get(replay.size() - 1).id();
        EpochGate gate = new EpochGate(clientEpoch);
        Multi<JobEvent> live = feed.events().select().where(e -> StreamIds.compare(e.id(), replayEnd) > 0);
        Multi<StreamMessage> messages = Multi.createBy().concatenating()
                .streams(Multi.createFrom().iterable(current), live)
                .onItem().transformToIterable(gate::accept);
        Multi<StreamMessage> keepAlives = Multi.createFrom().ticks().startingAfter(keepAlive).every(keepAlive)
                .map(tick -> StreamMessage.KEEP_ALIVE);
        return Multi.createBy().merging().streams(messages, keepAlives)
                .select().first(message -> message != EpochGate.END)
                .onTermination().invoke(feed::close);
    }
}

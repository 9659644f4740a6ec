package dev.fencedqueue.notifications;

import java.util.Optional;

import dev.fencedqueue.bulk.ChunkPlan;
import dev.fencedqueue.bulk.ChunkedJob;
import dev.fencedqueue.bulk.Throttle;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.UnrecoverableJobException;

/**
 * The notification fan-out, whichever sink it writes into ({@link PostgresNotificationFanOut},
 * {@link RedisNotificationFanOut}): a job whose data is a {@link FanOut}, that walks the channel's subscribers in
 * subscriber-id order (the cursor is the last subscriber id of the last committed chunk), with the channel as its
 * single-flight key.
 */
public interface NotificationFanOut extends ChunkedJob<String> {

    /** @return {@link FanOut}: a fan-out added over the API is checked as {@code POST .../fan-out} checks it */
    @Override
    default Optional<Class<?>> dataType() {
        return Optional.of(FanOut.class);
    }

    /**
     * @return how a fan-out runs: its chunk size and throttle, its channel as single-flight key
     * @throws UnrecoverableJobException when the job has no data
     */
    @Override
    default ChunkPlan plan(JobContext job) {
        FanOut fanOut = job.data(FanOut.class);
        if (fanOut == null) {
            throw new UnrecoverableJobException("a fan-out has no data: it needs `channel`, `message` and `chunkSize`");
        }
        return new ChunkPlan(fanOut.chunkSize(), fanOut.throttle() == null ? Throttle.NONE : fanOut.throttle(),
                fanOut.channel());
    }

    /** @return the subscriber id itself: subscribers are walked in id order */
    @Override
    default String cursorAfter(String subscriberId) {
        return subscriberId;
    }
}

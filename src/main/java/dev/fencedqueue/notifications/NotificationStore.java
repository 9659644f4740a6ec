package dev.fencedqueue.notifications;

import java.util.List;
import java.util.Optional;

import dev.fencedqueue.bulk.Cursor;
import io.smallrye.mutiny.Uni;

/**
 * Where notifications live outside a fan-out's chunks, in the sink {@code fq.bulk.sink} names: channel
 * subscribers, a subscriber's notifications, and a fan-out's committed cursor. {@link PostgresNotifications}
 * runs its JDBC calls on worker or virtual threads; {@link RedisNotifications} never blocks.
 */
public interface NotificationStore {

    /**
     * Adds subscribers to a channel; adding an existing one again does nothing.
     *
     * @param channel a valid channel name
     * @param subscriberIds valid subscriber ids, at least one
     * @return how many were new; fails with {@link dev.fencedqueue.postgres.DatabaseUnavailableException} (503)
     *         when the PostgreSQL sink has no database, or with the sink's error
     */
    Uni<Integer> add(String channel, List<String> subscriberIds);

    /**
     * @param channel a channel name
     * @return whether it has at least one subscriber
     */
    Uni<Boolean> hasSubscribers(String channel);

    /**
     * @param subscriberId a subscriber id
     * @param limit the most to return, positive
     * @return its notifications, newest first
     */
    Uni<List<Notification>> notifications(String subscriberId, int limit);

    /**
     * @param jobId a fan-out's id
     * @param channel its channel
     * @return its committed cursor in the sink (the truth), or empty when it never claimed one or the sink is
     *         not reachable without a database
     */
    Uni<Optional<Cursor>> committed(String jobId, String channel);
}

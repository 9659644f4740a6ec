package dev.fencedqueue.testing;

/**
 * What a notification fan-out wrote into its sink, counted the same way whichever the sink is
 * ({@link NotificationRows} for PostgreSQL, {@link RedisNotificationRows} for Redis), so that one test of a fan-out's
 * promise serves both sinks.
 */
public interface FanOutRows {

    /**
     * Creates a channel with {@code count} subscribers ({@code s-000000} ... in cursor order).
     *
     * @return the channel's name, fresh
     */
    String channelWith(int count);

    /** @return the job's notifications (notification-center entries) in the sink */
    long notifications(String channel, String jobId);

    /** @return the job's push-outbox entries in the sink */
    long outbox(String channel, String jobId);

    /** @return subscribers of the channel without exactly one notification and one outbox entry of the job, in all */
    long notExactlyOnce(String channel, String jobId);
}

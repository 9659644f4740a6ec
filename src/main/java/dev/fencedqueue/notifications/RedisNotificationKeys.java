package dev.fencedqueue.notifications;

/**
 * The Redis layout of notifications when {@code fq.bulk.sink=redis}. Everything a fan-out reads and writes shares
 * its channel's hash tag, so that one Lua script may commit a chunk even in Redis Cluster:
 * <ul>
 * <li>{@code <prefix>:notify:{<channel>}:subscribers}: sorted set of subscriber ids, all scored 0 (read in
 * lexicographic order, the cursor order);</li>
 * <li>{@code <prefix>:notify:{<channel>}:inbox:<subscriberId>}: list, the subscriber's notification center for
 * the channel, one JSON entry per notification, newest first;</li>
 * <li>{@code <prefix>:notify:{<channel>}:outbox}: stream, the push outbox, one entry per push to send
 * ({@code subscriberId}, {@code jobId}, {@code payload});</li>
 * <li>{@code <prefix>:notify:{<channel>}:cursor:<jobId>}: hash, a fan-out's fenced cursor.</li>
 * </ul>
 * Outside any chunk, {@code <prefix>:notify:subscriber:{<subscriberId>}:channels} (set) lists a subscriber's
 * channels, to find its notifications.
 *
 * @param prefix the global key prefix ({@code fq.redis.key-prefix})
 */
public record RedisNotificationKeys(String prefix) {

    /** @return the channel's subscribers */
    public String subscribers(String channel) {
        return channelPrefix(channel) + "subscribers";
    }

    /** @return a subscriber's notifications from the channel */
    public String inbox(String channel, String subscriberId) {
        return channelPrefix(channel) + "inbox:" + subscriberId;
    }

    /** @return the channel's push outbox */
    public String outbox(String channel) {
        return channelPrefix(channel) + "outbox";
    }

    /** @return a fan-out's cursor hash */
    public String cursor(String channel, String jobId) {
        return channelPrefix(channel) + "cursor:" + jobId;
    }

    /** @return the channels of a subscriber */
    public String channelsOf(String subscriberId) {
        return prefix + ":notify:subscriber:{" + subscriberId + "}:channels";
    }

    private String channelPrefix(String channel) {
        return prefix + ":notify:{" + channel + "}:";
    }
}

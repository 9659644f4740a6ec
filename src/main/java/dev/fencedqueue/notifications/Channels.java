package dev.fencedqueue.notifications;

import java.util.regex.Pattern;

/** The names the notification API accepts: channels and subscriber ids. */
public final class Channels {

    /** A channel name: 1 to 100 of {@code A-Z a-z 0-9 . _ : -}. */
    public static final Pattern CHANNEL = Pattern.compile("[A-Za-z0-9._:-]{1,100}");
    /** A subscriber id: 1 to 128 of {@code A-Z a-z 0-9 . _ : @ -}. */
    public static final Pattern SUBSCRIBER = Pattern.compile("[A-Za-z0-9._:@-]{1,128}");

    private Channels() {
    }

    /** @return whether {@code channel} is a valid channel name */
    public static boolean isChannel(String channel) {
        return channel != null && CHANNEL.matcher(channel).matches();
    }

    /** @return whether {@code subscriberId} is a valid subscriber id */
    public static boolean isSubscriber(String subscriberId) {
        return subscriberId != null && SUBSCRIBER.matcher(subscriberId).matches();
    }
}

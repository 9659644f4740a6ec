package dev.fencedqueue.api;

/** A fan-out was asked for a channel without subscribers; answered with 404. */
public class UnknownChannelException extends RuntimeException {

    /** @param channel the channel */
    public UnknownChannelException(String channel) {
        super("channel `" + channel + "` has no subscribers: add some with POST /notifications/channels/" + channel
                + "/subscribers");
    }
}

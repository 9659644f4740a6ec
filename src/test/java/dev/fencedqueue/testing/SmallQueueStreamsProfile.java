package dev.fencedqueue.testing;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/** Queue event streams bounded at 1,000 entries, so that tests reach the bound quickly. */
public class SmallQueueStreamsProfile implements QuarkusTestProfile {

    /** The bound of every queue's event stream under this profile, entries. */
    public static final int QUEUE_STREAM_MAX_LENGTH = 1000;

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("fq.events.queue-stream-max-length", Integer.toString(QUEUE_STREAM_MAX_LENGTH));
    }
}

package dev.fencedqueue.testing;

import java.util.Map;

/**
 * {@link WorkersOffProfile} with what the application reads once at startup for {@code SimulatorOffTest},
 * {@code SlowSubscriberTest} and {@code StartRateLimitTest}, which share it (none minds the others' settings): the
 * simulator off, as in production; small SSE buffers, so that a subscriber that stops reading is found out soon; and
 * at most {@value #STARTS} research starts per client address per 5 s, client addresses from {@code X-Forwarded-For}.
 */
public class RestrictiveProfile extends WorkersOffProfile {

    /** The research starts a client address may make per window. */
    public static final int STARTS = 3;

    @Override
    protected Map<String, String> more() {
        return Map.of("fq.simulator.enabled", "false",
                "fq.events.sse.subscriber-buffer", "16",
                "fq.events.sse.subscriber-write-queue", "4K",
                "fq.research.start-rate-limit.max", Integer.toString(STARTS),
                "fq.research.start-rate-limit.window", "5s",
                "quarkus.http.proxy.proxy-address-forwarding", "true",
                "quarkus.http.proxy.allow-x-forwarded", "true");
    }
}

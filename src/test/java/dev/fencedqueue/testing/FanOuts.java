package dev.fencedqueue.testing;

import static io.restassured.RestAssured.given;

import java.util.HashMap;
import java.util.Map;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

/** What the chunked-job tests of both sinks do through the API: start fan-outs, act as the operator, count refusals. */
public final class FanOuts {

    private FanOuts() {
    }

    /**
     * Starts a fan-out of {@code "to <channel>"} through the API (202 expected).
     *
     * @param pauseMs the throttle's pause between chunks, or {@code null} for none
     * @param throttle more throttle fields (e.g. {@code maxItemsPerSecond})
     * @return the job id
     */
    public static String start(String channel, int chunkSize, Integer pauseMs, Map<String, Object> throttle) {
        Map<String, Object> pacing = new HashMap<>(throttle);
        if (pauseMs != null) {
            pacing.put("pauseBetweenChunksMs", pauseMs);
        }
        return given().contentType(ContentType.JSON)
                .body(Map.of("message", "to " + channel, "chunkSize", chunkSize, "throttle", pacing))
                .post("/notifications/channels/" + channel + "/fan-out").then().statusCode(202).extract().path("jobId");
    }

    /** @return a request as the test operator (HTTP Basic {@code admin}/{@code admin}) */
    public static RequestSpecification admin() {
        return given().auth().preemptive().basic("admin", "admin");
    }

    /** @return {@code fq_bulk_chunks_rejected_total} of the queue so far */
    public static double rejectedChunks(MeterRegistry registry, String queue) {
        Counter counter = registry.find("fq.bulk.chunks.rejected").tag("queue", queue).counter();
        return counter == null ? 0 : counter.count();
    }
}

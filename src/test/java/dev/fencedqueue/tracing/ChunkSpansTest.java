package dev.fencedqueue.tracing;

import static dev.fencedqueue.testing.Timeouts.FAN_OUT_END;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import dev.fencedqueue.testing.FanOuts;
import dev.fencedqueue.testing.RedisTestResource;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A bulk job's chunks are child spans of its attempt (tracing on, the Redis sink, the service's own workers): each
 * with the cursor range it committed, the items it applied and the rows it wrote, the cursor of one chunk starting
 * where the one before it ended.
 */
@QuarkusTest
@TestProfile(ChunkSpansTest.Profile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ChunkSpansTest {

    /** The Redis sink, the service's workers, tracing on and exported within 100 ms. */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("fq.bulk.sink", "redis", "quarkus.otel.sdk.disabled", "false",
                    "quarkus.otel.bsp.schedule.delay", "100ms");
        }
    }

    @Inject
    InMemorySpanExporter exported;

    @Test
    void eachChunkOfAFanOutIsAChildOfItsAttemptWithItsCursorRangeItemsAndRows() {
        String channel = "traced-" + System.nanoTime();
        List<String> ids = IntStream.range(0, 25).mapToObj(n -> String.format("u-%02d", n)).toList();
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", ids))
                .post("/notifications/channels/" + channel + "/subscribers").then().statusCode(200);
        String jobId = FanOuts.start(channel, 10, null, Map.of());
        await("the fan-out completes").atMost(FAN_OUT_END).until(() -> "completed".equals(given()
                .get("/notifications/jobs/" + jobId).then().extract().path("state")));
        String traceId = given().get("/notifications/jobs/" + jobId).then().extract().path("traceId");
        assertThat(traceId).as("the job names its trace").isNotNull();

        List<SpanData> trace = await("the attempt's span is exported").atMost(TIMEOUT)
                .until(() -> exported.getFinishedSpanItems().stream().filter(span -> span.getTraceId().equals(traceId))
                        .toList(), spans -> spans.stream().anyMatch(span -> span.getName().equals("process notifications")));
        SpanData attempt = trace.stream().filter(span -> span.getName().equals("process notifications")).findFirst()
                .orElseThrow();
        assertThat(attempt.getAttributes().get(TraceAttributes.OUTCOME)).isEqualTo("result");
        List<SpanData> chunks = trace.stream().filter(span -> span.getName().equals("chunk notifications"))
                .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos)).toList();
        assertThat(chunks).as("three chunks of 10, 10 and 5, then the look that found none left").hasSize(4)
                .allSatisfy(chunk -> {
                    assertThat(chunk.getKind()).isEqualTo(SpanKind.INTERNAL);
                    assertThat(chunk.getParentSpanId()).isEqualTo(attempt.getSpanId());
                });
        assertThat(chunks).extracting(chunk -> chunk.getAttributes().get(TraceAttributes.CHUNK_OUTCOME))
                .containsExactly("committed", "committed", "committed", "done");
        assertThat(chunks).extracting(chunk -> chunk.getAttributes().get(TraceAttributes.CHUNK_ITEMS))
                .containsExactly(10L, 10L, 5L, 0L);
        assertThat(chunks).extracting(chunk -> chunk.getAttributes().get(TraceAttributes.CHUNK_ROWS))
                .as("an inbox entry and an outbox entry per subscriber").containsExactly(20L, 20L, 10L, 0L);
        assertThat(chunks.get(0).getAttributes().get(TraceAttributes.CURSOR_FROM)).isEmpty();
        for (int i = 1; i < chunks.size(); i++) {
            assertThat(chunks.get(i).getAttributes().get(TraceAttributes.CURSOR_FROM)).as("chunk %d starts where %d ended",
                    i, i - 1).isEqualTo(chunks.get(i - 1).getAttributes().get(TraceAttributes.CURSOR_TO));
        }
        assertThat(chunks.get(2).getAttributes().get(TraceAttributes.CURSOR_TO)).isEqualTo("u-24");
    }
}

package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.sse.JobEventTailers;
import dev.fencedqueue.testing.Flood;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RestrictiveProfile;
import dev.fencedqueue.testing.SseClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A subscriber that stops reading never holds the others back and never makes the service buffer without
 * bound: once its connection holds {@code fq.events.sse.subscriber-write-queue} bytes unsent and
 * {@code fq.events.sse.subscriber-buffer} events wait behind them, it is disconnected, and it resumes with
 * {@code Last-Event-ID}, missing nothing and getting nothing twice.
 */
@QuarkusTest
@TestProfile(RestrictiveProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class SlowSubscriberTest extends ResearchTestSupport {

    private static final int EVENTS = 3_000;
    /** 4 KB per event: 12 MB in all, more than the kernel's socket buffers can hide. */
    private static final String PADDING = "x".repeat(4_000);
    private static final Pattern ID = Pattern.compile("(?m)^id: (\\S+)\\n(?:[^\\n]+\\n)*\\n");

    @Inject
    JobEventTailers tailers;

    @Inject
    MeterRegistry registry;

    @Inject
    ObjectMapper json;

    @Test
    void disconnectsASubscriberThatStopsReadingWhileOthersGetEverythingAndItResumesWithLastEventId() throws Exception {
        String jobId = startJob("one reader stops");
        String url = base + "research/stream/" + jobId;
        int before = tailers.subscribers();
        double slowBefore = slowDisconnects();
        try (SseClient fast = SseClient.open(url); Socket slow = new Socket()) {
            slow.setReceiveBufferSize(4096);
            slow.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
            slow.getOutputStream().write(("GET /research/stream/" + jobId + " HTTP/1.1\r\nHost: " + base.getHost()
                    + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            await().atMost(TIMEOUT).until(() -> tailers.subscribers() - before == 2);

            worker(new Flood(json, EVENTS, PADDING, 1), "flood").start();

            await("the reader that stopped is disconnected").atMost(Duration.ofSeconds(60))
                    .until(() -> slowDisconnects() > slowBefore);
            await("the other one gets every event").atMost(Duration.ofSeconds(60)).until(() -> fast.ended().isDone());
            List<String> all = given().get("/research/history/" + jobId).jsonPath().getList("id");
            assertThat(all).hasSize(EVENTS + 2); // started, the progress events, completed
            assertThat(fast.events()).extracting(SseClient.Message::id).containsExactlyElementsOf(all);
            await().atMost(TIMEOUT).until(() -> tailers.subscribers() == before);

            List<String> received = idsUntilClosed(slow.getInputStream());
            assertThat(received).as("what the slow reader got before its disconnect").isNotEmpty()
                    .hasSizeLessThan(all.size()).containsExactlyElementsOf(all.subList(0, received.size()));
            try (SseClient resumed = SseClient.open(url, received.get(received.size() - 1))) {
                await().atMost(Duration.ofSeconds(30)).until(() -> resumed.ended().isDone());
                List<String> together = new ArrayList<>(received);
                resumed.events().forEach(event -> together.add(event.id()));
                assertThat(together).as("before the disconnect, then resumed").containsExactlyElementsOf(all);
            }
        }
    }

    private double slowDisconnects() {
        return registry.find("fq.sse.slow.disconnects").counter().count();
    }

    /** @return the ids of the complete events read until the server closed the connection */
    private static List<String> idsUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] chunk = new byte[65_536];
        try {
            for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
                bytes.write(chunk, 0, n);
            }
        } catch (IOException reset) {
            // the server reset the connection: what arrived before counts
        }
        // Chunked transfer coding: the chunk-size lines sit between the events' lines, each frame is one chunk.
        String body = bytes.toString(StandardCharsets.UTF_8).replaceAll("\\r\\n[0-9a-f]+\\r\\n", "");
        List<String> ids = new ArrayList<>();
        Matcher matcher = ID.matcher(body);
        while (matcher.find()) {
            ids.add(matcher.group(1));
        }
        return ids;
    }
}

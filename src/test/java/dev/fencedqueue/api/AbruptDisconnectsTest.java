package dev.fencedqueue.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.sse.JobEventTailers;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Subscribers that go away free everything at once: 1,000 SSE connections on one job, then all of them reset by
 * their clients (TCP RST, no goodbye), and the instance's subscribers ({@code fq_sse_subscribers}) are back to
 * where they were within seconds.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AbruptDisconnectsTest {

    private static final int CONNECTIONS = 1000;

    @TestHTTPResource("/")
    URL base;

    @Inject
    JobEventTailers tailers;

    @Test
    void aThousandSubscribersResetByTheirClientsAreAllFreed() throws IOException {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "nobody runs me"))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
        int before = tailers.subscribers();
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                Socket socket = new Socket();
                socket.connect(new InetSocketAddress("127.0.0.1", base.getPort()), 5000);
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(("GET /research/stream/" + jobId + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Accept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                sockets.add(socket);
            }
            for (Socket socket : sockets) {
                assertThat(statusLine(socket.getInputStream())).startsWith("HTTP/1.1 200");
            }
            await("every connection is a subscriber").atMost(Duration.ofSeconds(20))
                    .until(() -> tailers.subscribers() - before == CONNECTIONS);
            given().get("/q/metrics").then().body(org.hamcrest.Matchers.containsString("fq_sse_subscribers"));
        } finally {
            for (Socket socket : sockets) {
                socket.setSoLinger(true, 0); // close with a reset, as a crashed client or a cut network does
                socket.close();
            }
        }

        await("all of them freed").atMost(Duration.ofSeconds(15)).until(() -> tailers.subscribers() == before);
        given().post("/research/abort/" + jobId).then().statusCode(200);
    }

    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
            line.append((char) b);
        }
        return line.toString().trim();
    }
}

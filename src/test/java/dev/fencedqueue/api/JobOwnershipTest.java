package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.fencedqueue.testing.BearerTokens.token;
import static org.hamcrest.Matchers.equalTo;

import java.util.Map;

import dev.fencedqueue.testing.BearerTokens;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import org.junit.jupiter.api.Test;

/**
 * With {@code fq.research.require-owner}, a research job belongs to the bearer token that started
 * it. Its owner reads and aborts it; another caller gets 403 and an anonymous one 401 (with a {@code Bearer}
 * challenge), on every endpoint of the job, its SSE stream included; a token signed by another key is refused.
 */
@QuarkusTest
@TestProfile(JobOwnershipTest.OwnersRequired.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class JobOwnershipTest {

    /**
     * Ownership on, and tenants from the token's principal, tokens verified against {@link BearerTokens#KEYS}; no
     * worker, so that jobs wait.
     */
    public static class OwnersRequired extends WorkersOffProfile {
        @Override
        protected Map<String, String> more() {
            Map<String, String> config = new java.util.HashMap<>(BearerTokens.verified());
            config.put("fq.research.require-owner", "true");
            config.put("fq.tenancy.source", "principal"); // for JobTenancyPrincipalTest, sharing the application
            return config;
        }
    }

    @TestHTTPResource("/")
    String base;

    @Test
    void startingAJobNeedsABearerToken() {
        given().contentType(ContentType.JSON).body(Map.of("query", "whose job?")).post("/research/start")
                .then().statusCode(401).header("WWW-Authenticate", "Bearer").body("error", equalTo("unauthorized"));
        as(token("mallory", BearerTokens.rsaKeyPair("someone else"))).contentType(ContentType.JSON)
                .body(Map.of("query", "signed by another key")).post("/research/start").then().statusCode(401);
    }

    @Test
    void onlyTheOwnerReadsAndAbortsItsJob() {
        String alice = token("alice", BearerTokens.KEYS);
        String bob = token("bob", BearerTokens.KEYS);
        String jobId = as(alice).contentType(ContentType.JSON).body(Map.of("query", "alice's question"))
                .post("/research/start").then().statusCode(202).extract().path("jobId");

        as(alice).get("/research/status/" + jobId).then().statusCode(200).body("data.owner", equalTo("alice"));
        for (String path : new String[] {"/research/status/", "/research/history/", "/research/valid-history/"}) {
            as(alice).get(path + jobId).then().statusCode(200);
            as(bob).get(path + jobId).then().statusCode(403).body("error", equalTo("forbidden"));
            given().get(path + jobId).then().statusCode(401).header("WWW-Authenticate", "Bearer");
        }
        assertThat(streamStatus(jobId, alice)).isEqualTo(200);
        assertThat(streamStatus(jobId, bob)).isEqualTo(403);
        assertThat(streamStatus(jobId, null)).isEqualTo(401);

        as(bob).post("/research/abort/" + jobId).then().statusCode(403);
        given().post("/research/abort/" + jobId).then().statusCode(401);
        as(alice).get("/research/status/" + jobId).then().statusCode(200).body("state", equalTo("waiting"));
        as(alice).post("/research/abort/" + jobId).then().statusCode(200).body("state", equalTo("aborted"));
    }

    private int streamStatus(String jobId, String token) {
        try (SseClient stream = SseClient.open(base + "research/stream/" + jobId,
                token == null ? Map.of() : Map.of("Authorization", "Bearer " + token))) {
            return stream.status().orTimeout(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).join();
        }
    }

    private static RequestSpecification as(String token) {
        return given().header("Authorization", "Bearer " + token);
    }
}

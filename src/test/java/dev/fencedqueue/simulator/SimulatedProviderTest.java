package dev.fencedqueue.simulator;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The simulator answers like a provider at its limits and in its bad minutes ({@link SimulatedProvider}): OpenAI's
 * {@code x-ratelimit-*} headers on what it admits, {@code 429} with {@code retry-after} past a request or token limit (a
 * request larger than the token limit refused for good), and during an outage {@code 503}, {@code 500} or a closed
 * connection until it ends. Limits and outages are set at run time and put back after each test.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class SimulatedProviderTest {

    private static final String DURATION = "(\\d+h)?(\\d+m)?(\\d+(\\.\\d+)?s|\\d+ms)";

    @Inject
    SimulatedProvider provider;

    @AfterEach
    void noLimitNoOutage() {
        provider.limit(null, null);
        provider.end();
    }

    @Test
    void admitsWithRateLimitHeadersAndAnswers429PastItsLimits() {
        given().contentType(ContentType.JSON).body(Map.of("requestsPerMinute", 3, "tokensPerMinute", 1000))
                .put("/simulator/provider").then().statusCode(200).body("remainingRequests", equalTo(3));

        Response first = chat(600).then().statusCode(200).extract().response();
        assertThat(first.header("x-ratelimit-limit-requests")).isEqualTo("3");
        assertThat(first.header("x-ratelimit-remaining-requests")).isEqualTo("2");
        assertThat(first.header("x-ratelimit-reset-requests")).matches(DURATION);
        assertThat(first.header("x-ratelimit-limit-tokens")).isEqualTo("1000");
        assertThat(first.header("x-ratelimit-remaining-tokens")).as("the prompt's 2 and the 600 it may use")
                .isEqualTo("398");
        assertThat(first.header("x-ratelimit-reset-tokens")).matches(DURATION);
        assertThat(first.asString()).contains("[DONE]");

        chat(2_000).then().statusCode(429).header("retry-after", (String) null).body("error.type", equalTo("tokens"))
                .body("error.message", containsString("Request too large"));
        Response tokens = chat(500).then().statusCode(429).body("error.type", equalTo("tokens"))
                .body("error.code", equalTo("rate_limit_exceeded")).extract().response();
        assertThat(Long.parseLong(tokens.header("retry-after"))).as("s until 104 more tokens refill").isBetween(1L, 7L);
        assertThat(Long.parseLong(tokens.header("retry-after-ms"))).isPositive();

        assertThat(chat(2).then().statusCode(200).extract().header("x-ratelimit-remaining-requests"))
                .as("the refused ones took no request").isEqualTo("1");
        assertThat(chat(2).then().statusCode(200).extract().header("x-ratelimit-remaining-requests")).isEqualTo("0");
        Response requests = chat(2).then().statusCode(429).body("error.type", equalTo("requests"))
                .body("error.message", containsString("requests per min (RPM): Limit 3")).extract().response();
        assertThat(Long.parseLong(requests.header("retry-after"))).as("s until one request refills").isBetween(1L, 21L);

        given().get("/simulator/provider").then().statusCode(200).body("rateLimited", equalTo(3))
                .body("remainingRequests", equalTo(0));
    }

    @Test
    void theResponsesApiAnswersAtItsLimitsToo() {
        provider.limit(1L, null);
        Map<String, Object> body = Map.of("model", "sim", "input", "two words", "max_output_tokens", 2);
        given().contentType(ContentType.JSON).body(body).post("/simulator/v1/responses").then().statusCode(200)
                .header("x-ratelimit-remaining-requests", "0");
        given().contentType(ContentType.JSON).body(body).post("/simulator/v1/responses").then().statusCode(429)
                .body("error.type", equalTo("requests")).header("retry-after", org.hamcrest.Matchers.notNullValue());
    }

    @Test
    void anOutageFailsEveryRequestUntilItEnds() {
        outage("unavailable").then().statusCode(200).body("outageKind", equalTo("unavailable"));
        chat(2).then().statusCode(503).body("error.type", equalTo("server_error"));
        outage("error");
        chat(2).then().statusCode(500).body("error.type", equalTo("server_error"));
        outage("reset");
        assertThatThrownBy(() -> chat(2)).as("the connection closed without a response").isInstanceOf(Exception.class);

        given().delete("/simulator/provider/outage").then().statusCode(200).body("outageKind", equalTo(null));
        chat(2).then().statusCode(200);
        given().get("/simulator/provider").then().body("failed", equalTo(3));
    }

    @Test
    void refusesAnOutageOrLimitsItCannotTake() {
        given().contentType(ContentType.JSON).body(Map.of("seconds", 0)).put("/simulator/provider/outage").then()
                .statusCode(400).body(containsString("`seconds`"));
        given().contentType(ContentType.JSON).body(Map.of("seconds", 5, "kind", "down")).put("/simulator/provider/outage")
                .then().statusCode(400).body(containsString("`kind`"));
        given().contentType(ContentType.JSON).body(Map.of("tokensPerMinute", -1)).put("/simulator/provider").then()
                .statusCode(400).body(containsString("`tokensPerMinute`"));
    }

    @Test
    void writesResetsAsOpenAiDoes() {
        assertThat(SimulatedProvider.goDuration(120)).isEqualTo("120ms");
        assertThat(SimulatedProvider.goDuration(1_000)).isEqualTo("1s");
        assertThat(SimulatedProvider.goDuration(1_500)).isEqualTo("1.5s");
        assertThat(SimulatedProvider.goDuration(360_000)).isEqualTo("6m0s");
        assertThat(SimulatedProvider.goDuration(3_723_004)).isEqualTo("1h2m3.004s");
    }

    private static Response outage(String kind) {
        return given().contentType(ContentType.JSON).body(Map.of("seconds", 60, "kind", kind))
                .put("/simulator/provider/outage");
    }

    /** A streamed chat completion of two prompt words that may use {@code maxTokens}. */
    private static Response chat(int maxTokens) {
        return given().contentType(ContentType.JSON).body(Map.of("model", "sim", "stream", true, "max_tokens", maxTokens,
                "messages", List.of(Map.of("role", "user", "content", "two words")))).post("/simulator/v1/chat/completions");
    }
}

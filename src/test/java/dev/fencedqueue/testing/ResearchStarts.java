package dev.fencedqueue.testing;

import static io.restassured.RestAssured.given;

import java.util.Map;

import io.restassured.http.ContentType;
import io.restassured.response.Response;

/** {@code POST /research/start} for tests of the Redis topology around it. */
public final class ResearchStarts {

    private ResearchStarts() {
    }

    /**
     * @param query the job's query
     * @return the new job's id; the test fails unless the answer is {@code 202}
     */
    public static String start(String query) {
        return given().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start")
                .then().statusCode(202).extract().jsonPath().getString("jobId");
    }

    /**
     * @param query the job's query
     * @return the new job's id, or {@code null} for a {@code 503}: a start whose commands were in flight while the
     *         service moved its connections to a new master is refused as Redis unavailable (nothing was accepted, and
     *         a client retries); any other answer than {@code 202} fails the test
     */
    public static String startUnlessUnavailable(String query) {
        Response response = given().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start");
        if (response.statusCode() == 503) {
            return null;
        }
        return response.then().statusCode(202).extract().jsonPath().getString("jobId");
    }
}

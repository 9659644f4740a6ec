package dev.fencedqueue.api;

import static dev.fencedqueue.testing.BearerTokens.token;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import java.util.Map;

import dev.fencedqueue.testing.BearerTokens;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * With {@code fq.tenancy.source=principal}, a job belongs to the principal of the bearer JWT that added it; a request
 * without a valid token gets 401 with a {@code Bearer} challenge, and the setting refuses to start without a way to
 * verify tokens. It shares {@link JobOwnershipTest}'s application, where job ownership is on too.
 */
@QuarkusTest
@TestProfile(JobOwnershipTest.OwnersRequired.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class JobTenancyPrincipalTest {

    @Test
    void aJobBelongsToThePrincipalOfTheTokenThatAddedIt() {
        String alice = "Bearer " + token("alice@example.com", BearerTokens.KEYS);
        String jobId = given().header("Authorization", alice).contentType(ContentType.JSON)
                .body(Map.of("query", "alice's question")).post("/research/start").then().statusCode(202)
                .extract().path("jobId");

        given().header("Authorization", alice).get("/research/status/" + jobId).then().statusCode(200)
                .body("tenant", equalTo("alice@example.com"));
    }

    @Test
    void aRequestWithoutAValidTokenIsRefused() {
        given().contentType(ContentType.JSON).body(Map.of("query", "anonymous")).post("/research/start")
                .then().statusCode(401).header("WWW-Authenticate", "Bearer").body("error", equalTo("unauthorized"));
        given().header("Authorization", "Bearer " + token("mallory", BearerTokens.rsaKeyPair("someone else")))
                .contentType(ContentType.JSON).body(Map.of("query", "forged")).post("/research/start")
                .then().statusCode(401);
    }

    @Test
    void theSettingNeedsTokensItCanVerify() {
        Assertions.assertThatThrownBy(() -> BearerTokenCheck.check("`fq.tenancy.source=principal`", true,
                new BearerTokenCheck.Verification(true, false))).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("`fq.tenancy.source=principal` needs bearer tokens to be verifiable");
    }
}

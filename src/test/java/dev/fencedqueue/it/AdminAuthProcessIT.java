package dev.fencedqueue.it;

import static org.hamcrest.Matchers.hasItem;

import java.util.Map;

import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator API's credentials in the packaged application (the production profile): there is no default
 * user, so {@code /admin} answers 401 until {@code FQ_ADMIN_PASSWORD} (and optionally
 * {@code FQ_ADMIN_USERNAME}) is set; the research API and the probes stay open either way.
 */
class AdminAuthProcessIT {

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(Map.of("fq.worker.enabled", "false"));

    @Test
    void packagedServiceHasNoOperatorUntilCredentialsAreConfigured() {
        ServiceProcess service = fleet.launch("no-admin", Map.of());

        service.request().get("/admin/queues").then().statusCode(401);
        service.request().auth().preemptive().basic("admin", "admin").get("/admin/queues").then().statusCode(401);
        service.request().auth().preemptive().basic("admin", "").get("/admin/queues").then().statusCode(401);
        service.request().contentType(ContentType.JSON).body(Map.of("query", "open")).post("/research/start")
                .then().statusCode(202);
        service.request().get("/q/health/ready").then().statusCode(200);
    }

    @Test
    void operatorCredentialsComeFromTheEnvironment() {
        ServiceProcess service = fleet.launch("env-admin", Map.of(),
                Map.of("FQ_ADMIN_USERNAME", "ops", "FQ_ADMIN_PASSWORD", "s3cret-from-a-secret"));

        service.request().auth().preemptive().basic("ops", "s3cret-from-a-secret").get("/admin/queues")
                .then().statusCode(200).body("queue", hasItem("deep-research"));
        service.request().auth().preemptive().basic("admin", "admin").get("/admin/queues").then().statusCode(401);
        service.request().auth().preemptive().basic("ops", "wrong").get("/admin/queues").then().statusCode(401);
    }
}

package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.fencedqueue.testing.AotTraining;
import dev.fencedqueue.testing.PackagedApplication;
import dev.fencedqueue.testing.ServiceProcess;
import dev.fencedqueue.testing.SseClient;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The JVM that starts warm: the uber-jar of {@code ./mvnw package -Paot}, trained as the JVM container image trains
 * it ({@code src/main/docker/aot-training.sh}), then started on JDK 25 with {@code -XX:AOTMode=on}, under which the
 * JVM refuses to start unless it maps the cache and its class path matches the training's. Runs with
 * {@code ./mvnw verify -Paot -DskipUnitTests -Dit.test=AotCacheIT} and a JDK 25 ({@link AotTraining#java()}); skipped
 * on the fast-jar and the native executable of the other builds, failed instead with {@code FQ_AOT_TESTS=required}
 * (CI).
 */
class AotCacheIT {

    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(Map.of());

    @Test
    void aJvmStartedOnTheTrainedCacheMapsItAndRunsAResearchJobToTheEnd() {
        PackagedApplication application = PackagedApplication.built();
        Optional<Path> java = AotTraining.java();
        boolean uberJar = application.type() == PackagedApplication.Type.JAR
                && application.path().getFileName().toString().endsWith("-runner.jar");
        if ("required".equals(System.getenv("FQ_AOT_TESTS")) && !(uberJar && java.isPresent())) {
            fail("FQ_AOT_TESTS=required, but " + (uberJar ? "no JDK 25 was found (FQ_AOT_JAVA)"
                    : "the build is not the uber-jar of `./mvnw package -Paot`: " + application.path()));
        }
        assumeTrue(uberJar, "the AOT cache is trained on the uber-jar: ./mvnw verify -Paot -Dit.test=AotCacheIT");
        assumeTrue(java.isPresent(), "the AOT cache needs a JDK 25: FQ_AOT_JAVA=<its bin/java>");
        Path cache = Path.of("target", "aot", "app.aot").toAbsolutePath();

        AotTraining.run(java.get(), application.path(), fleet.redisUri(), cache, 60);

        assertThat(cache).isNotEmptyFile();
        ServiceProcess warm = fleet.start("warm", application.withJava(java.get()),
                List.of("-XX:AOTMode=on", "-XX:AOTCache=" + cache, "-Xlog:aot=info"),
                Map.of("fq.simulator.research.step-interval", "200ms"), Map.of());
        fleet.awaitReady(warm);
        assertThat(warm.log()).contains("Opened AOT cache " + cache);

        String jobId = warm.request().contentType(ContentType.JSON).body(Map.of("query", "a warm start"))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
        try (SseClient stream = SseClient.open(warm.url("/research/stream/" + jobId))) {
            await("the job's stream ends").atMost(JOB_TIMEOUT).until(() -> stream.ended().isDone());
            List<String> events = stream.events().stream().map(SseClient.Message::event).toList();
            assertThat(events).startsWith("started").endsWith("completed");
        }
    }
}

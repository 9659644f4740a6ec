package dev.fencedqueue.queue;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.fencedqueue.testing.RedisSentinelResource;
import dev.fencedqueue.testing.RedisTestResource.InjectRedis;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The service on Redis with Sentinel ({@code quarkus.redis.client-type=sentinel}) through a failover.
 * Jobs submitted before, during and right after {@code SENTINEL FAILOVER} all end exactly once: a job is accepted only
 * once the replica has it ({@code fq.redis.wait.replicas=1}), and the service follows the master switch at once
 * (it listens for {@code +switch-master} on every Sentinel), so that nothing it writes lands on the old master.
 */
@QuarkusTest
@RuntimeProfile(RedisSentinelTest.ShortJobs.class)
@WithTestResource(value = RedisSentinelResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class RedisSentinelTest extends ResearchTestSupport {

    private static final Duration STEP = Duration.ofSeconds(60);

    /** Short research jobs, so that many end during the test. */
    public static class ShortJobs extends WorkersOffProfile {
        @Override
        protected Map<String, String> more() {
            return Map.of("fq.simulator.research.steps", "3", "fq.simulator.research.step-interval", "100ms");
        }
    }

    @InjectRedis
    RedisSentinelResource.Topology redis;

    @Inject
    Queues queues;

    @Test
    void jobsSubmittedBeforeDuringAndRightAfterAFailoverAllEndExactlyOnce() throws InterruptedException {
        startResearchWorker("worker-S1");
        startResearchWorker("worker-S2");
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 10; i++) {
            accepted.add(startJob("before the failover " + i));
        }

        AtomicBoolean submitting = new AtomicBoolean(true);
        AtomicInteger refused = new AtomicInteger();
        Set<String> afterSwitch = ConcurrentHashMap.newKeySet();
        AtomicBoolean switched = new AtomicBoolean();
        Thread submitter = new Thread(() -> {
            int n = 0;
            while (submitting.get()) {
                boolean afterIt = switched.get();
                Response response = given().contentType(ContentType.JSON).body(Map.of("query", "during " + n++))
                        .post("/research/start");
                if (response.statusCode() == 202) {
                    accepted.add(response.jsonPath().getString("jobId"));
                    if (afterIt) {
                        afterSwitch.add(response.jsonPath().getString("jobId"));
                    }
                } else {
                    refused.incrementAndGet();
                }
            }
        }, "sentinel-submitter");
        submitter.start();
        try {
            redis.sentinels().get(0).call("SENTINEL", "FAILOVER", RedisSentinelResource.MASTER);
            await("the replica is the master").atMost(STEP).ignoreExceptions()
                    .until(() -> "master".equals(redis.replica().call("ROLE").get(0).toString()));
            switched.set(true);
            await("jobs are accepted after the switch").atMost(STEP).until(() -> afterSwitch.size() >= 10);
        } finally {
            submitting.set(false);
            submitter.join(STEP.toMillis());
        }

        QueueKeys keys = queues.keys(research.queue());
        String newest = afterSwitch.iterator().next();
        assertThat(redis.replica().call("EXISTS", keys.job(newest)).toLong())
                .as("the service writes to the new master").isEqualTo(1);
        System.out.printf("sentinel: %d jobs accepted, %d refused during the failover%n", accepted.size(), refused.get());

        await("every accepted job ends").atMost(STEP).ignoreExceptions().until(() -> accepted.stream()
                .allMatch(id -> "completed".equals(status(id).getString("state"))));
        for (String id : accepted) {
            List<Map<String, Object>> history = given().get("/research/history/" + id).jsonPath().getList("$");
            assertThat(history).as("%s ends once", id)
                    .filteredOn(e -> List.of("completed", "failed", "aborted").contains(e.get("event"))).hasSize(1);
        }
        await("the old master follows the new one").atMost(STEP).ignoreExceptions()
                .until(() -> "slave".equals(redis.master().call("ROLE").get(0).toString()));
    }
}

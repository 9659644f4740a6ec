package dev.fencedqueue.queue;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import dev.fencedqueue.testing.RedisProcess;
import dev.fencedqueue.testing.RedisSentinelResource;
import dev.fencedqueue.testing.RedisTestResource.InjectRedis;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SentinelDefaultsResource;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

/**
 * The service with its default durability settings on 1 master, 1 replica and 3 Sentinels, through two
 * {@code SENTINEL FAILOVER}s in a row while jobs are submitted all the time: every job answered {@code 202} ends
 * completed exactly once, and a job that could not be made durable is refused with {@code 503}, never accepted and then
 * lost.
 */
@QuarkusTest
@RuntimeProfile(SentinelFailoversTest.ShortJobs.class)
@WithTestResource(value = SentinelDefaultsResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class SentinelFailoversTest extends ResearchTestSupport {

    private static final Duration STEP = Duration.ofSeconds(90);
    /** To the replica and back: each Redis server is promoted once, the second after it was demoted and resynced. */
    private static final int FAILOVERS = 2;
    /** One submission at most this often: 10 jobs a second. */
    private static final Duration SUBMIT_EVERY = Duration.ofMillis(100);
    private static final String MASTER = RedisSentinelResource.MASTER;

    /** Short research jobs and locks, so that many end during the test and a lost lock shows soon. */
    public static class ShortJobs extends WorkersOffProfile {
        @Override
        protected Map<String, String> more() {
            return Map.of("fq.simulator.research.steps", "3", "fq.simulator.research.step-interval", "100ms",
                    "fq.worker.lock.duration", "2s", "fq.worker.lock.renew-interval", "500ms",
                    "fq.worker.stalled.interval", "1s");
        }
    }

    @InjectRedis
    RedisSentinelResource.Topology redis;

    @Test
    void everyJobAnswered202EndsCompletedOnceThroughFailoversInARowAndWhatCannotBeKeptIsRefused()
            throws InterruptedException {
        startResearchWorker("worker-F1");
        startResearchWorker("worker-F2");
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        Queue<String> unexpected = new ConcurrentLinkedQueue<>();
        AtomicInteger refused = new AtomicInteger();
        AtomicBoolean submitting = new AtomicBoolean(true);
        Thread submitter = new Thread(() -> {
            // Paced below what the two workers get through, so that the backlog, and the time the jobs take to end
            // after the last failover, do not grow with the machine's speed.
            for (int n = 0; submitting.get(); n++, LockSupport.parkNanos(SUBMIT_EVERY.toNanos())) {
                Response response = given().contentType(ContentType.JSON).body(Map.of("query", "failover " + n))
                        .post("/research/start");
                if (response.statusCode() == 202) {
                    accepted.add(response.jsonPath().getString("jobId"));
                } else if (response.statusCode() == 503) {
                    refused.incrementAndGet();
                } else {
                    unexpected.add(response.statusCode() + " " + response.body().asString());
                }
            }
        }, "failover-submitter");
        submitter.start();
        try {
            for (int i = 1; i <= FAILOVERS; i++) {
                RedisProcess master = roleOf("master");
                RedisProcess replica = roleOf("slave");
                awaitFailoverReady(master, replica);
                int before = accepted.size();
                redis.sentinels().get(i % redis.sentinels().size()).call("SENTINEL", "FAILOVER", MASTER);
                String newMaster = Integer.toString(replica.port());
                await("failover " + i + ": every Sentinel names the new master").atMost(STEP).ignoreExceptions()
                        .until(() -> redis.sentinels().stream().allMatch(s -> newMaster.equals(
                                s.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER).get(1).toString())));
                await("failover " + i + ": the old master is a replica of the new one").atMost(STEP)
                        .ignoreExceptions().until(() -> "slave".equals(master.call("ROLE").get(0).toString()));
                await("failover " + i + ": jobs are accepted after it").atMost(STEP)
                        .until(() -> accepted.size() >= before + 10);
                System.out.printf("sentinel failovers: %d done, %d jobs accepted, %d refused%n", i, accepted.size(),
                        refused.get());
            }
        } finally {
            submitting.set(false);
            submitter.join(STEP.toMillis());
        }

        assertThat(unexpected).as("answers other than 202 and 503").isEmpty();
        await("every accepted job ends").atMost(STEP).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> unfinished(accepted).isEmpty());
        List<String> notOnce = new ArrayList<>();
        for (String id : accepted) {
            List<Map<String, Object>> history = given().get("/research/history/" + id).jsonPath().getList("$");
            long ends = history.stream()
                    .filter(e -> List.of("completed", "failed", "aborted").contains(e.get("event"))).count();
            if (ends != 1) {
                notOnce.add(id + " ended " + ends + " times");
            }
        }
        assertThat(notOnce).as("accepted jobs that did not end exactly once").isEmpty();
    }

    /** @return the accepted jobs that are not completed, with their state (404: lost) */
    private static List<String> unfinished(Set<String> accepted) {
        List<String> unfinished = new ArrayList<>();
        for (String id : accepted) {
            Response status = given().get("/research/status/" + id);
            String state = status.statusCode() == 200 ? status.jsonPath().getString("state") : "HTTP " + status.statusCode();
            if (!"completed".equals(state)) {
                unfinished.add(id + ": " + state);
            }
        }
        if (!unfinished.isEmpty()) {
            System.out.printf("sentinel failovers: %d accepted jobs not completed yet: %s%n", unfinished.size(),
                    unfinished.subList(0, Math.min(5, unfinished.size())));
        }
        return unfinished;
    }

    private RedisProcess roleOf(String role) {
        return await().atMost(STEP).ignoreExceptions().until(() -> List.of(redis.master(), redis.replica()).stream()
                .filter(p -> role.equals(p.call("ROLE").get(0).toString())).findFirst().orElse(null),
                p -> p != null);
    }

    /**
     * Waits until the replica is in sync, every Sentinel sees it as a healthy replica it may promote, and the service
     * knows it (a new job waits for one replica).
     */
    private void awaitFailoverReady(RedisProcess master, RedisProcess replica) {
        String port = Integer.toString(replica.port());
        await("the replica is in sync and known to every Sentinel and to the service").atMost(STEP).ignoreExceptions()
                .until(() -> {
            if (!replica.call("INFO", "replication").toString().contains("master_link_status:up")
                    || given().get("/q/health/ready").jsonPath()
                            .getInt("checks.find { it.name == 'redis-durability' }.data.replicas") != 1) {
                return false;
            }
            return redis.sentinels().stream().allMatch(s -> {
                io.vertx.redis.client.Response replicas = s.call("SENTINEL", "REPLICAS", MASTER);
                for (int r = 0; r < replicas.size(); r++) {
                    io.vertx.redis.client.Response entry = replicas.get(r);
                    if (port.equals(entry.get("port").toString())) {
                        return "slave".equals(entry.get("flags").toString())
                                && "ok".equals(entry.get("master-link-status").toString());
                    }
                }
                return false;
            });
        });
    }
}

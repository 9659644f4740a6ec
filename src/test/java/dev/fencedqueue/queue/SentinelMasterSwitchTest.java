package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.ResearchStarts.start;
import static dev.fencedqueue.testing.ResearchStarts.startUnlessUnavailable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import dev.fencedqueue.research.ResearchProcessor;
import dev.fencedqueue.testing.RedisSentinelResource;
import dev.fencedqueue.testing.RedisTestResource.InjectRedis;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.StubbornMasterSentinelResource;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The service follows a Sentinel master switch at once (it listens for {@code +switch-master} on every Sentinel and
 * confirms the master with them), apart from what {@code fq.redis.wait.replicas} adds. The old master here cannot be
 * demoted and keeps the service's connections, as one cut off from the Sentinels but not from the service would:
 * without following the switch, new jobs keep landing on it (answered {@code 202}, then lost to the new master).
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = StubbornMasterSentinelResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class SentinelMasterSwitchTest {

    private static final Duration STEP = Duration.ofSeconds(60);

    @InjectRedis
    RedisSentinelResource.Topology redis;

    @Inject
    Queues queues;

    @Inject
    ResearchProcessor research;

    @Test
    void newJobsGoToTheNewMasterOnceSentinelSwitchesEvenWhileTheOldOneStillTakesWrites() {
        String before = start("before the switch");
        QueueKeys keys = queues.keys(research.queue());
        assertThat(redis.master().call("EXISTS", keys.job(before)).toLong()).isEqualTo(1);

        redis.sentinels().get(0).call("SENTINEL", "FAILOVER", RedisSentinelResource.MASTER);
        String newMasterPort = Integer.toString(redis.replica().port());
        await("every Sentinel switched to the new master").atMost(STEP).ignoreExceptions()
                .until(() -> redis.sentinels().stream().allMatch(sentinel -> newMasterPort.equals(sentinel
                        .call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", RedisSentinelResource.MASTER).get(1).toString())));
        assertThat(redis.master().call("ROLE").get(0).toString()).as("the old master still takes writes")
                .isEqualTo("master");

        long switchedAt = System.nanoTime();
        String after = await("a new job lands on the new master").atMost(STEP)
                .until(() -> startUnlessUnavailable("after the switch"),
                        jobId -> jobId != null && redis.replica().call("EXISTS", keys.job(jobId)).toLong() == 1);
        System.out.printf("sentinel: the first new job landed on the new master %d ms after every Sentinel switched%n",
                (System.nanoTime() - switchedAt) / 1_000_000);
        assertThat(redis.master().call("EXISTS", keys.job(after)).toLong()).as("nothing on the old master").isZero();
        for (int i = 0; i < 5; i++) {
            String next = start("later " + i);
            assertThat(redis.replica().call("EXISTS", keys.job(next)).toLong()).as("%s on the new master", next)
                    .isEqualTo(1);
        }
    }
}

package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.ResearchStarts.start;
import static dev.fencedqueue.testing.ResearchStarts.startUnlessUnavailable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import dev.fencedqueue.research.ResearchProcessor;
import dev.fencedqueue.testing.MutedSentinelResource;
import dev.fencedqueue.testing.RedisSentinelResource;
import dev.fencedqueue.testing.RedisTestResource.InjectRedis;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The service does not hang on one Sentinel notification: its subscription to {@code +switch-master} is frozen (the
 * connection stays open, nothing arrives on it) while the Sentinel switches to the replica, and the old master, which
 * cannot be demoted, keeps taking writes. The service confirms the master with the Sentinel every second, so new jobs
 * still go to the new master.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = MutedSentinelResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class SentinelNotificationLostTest {

    private static final Duration STEP = Duration.ofSeconds(60);

    @InjectRedis
    MutedSentinelResource.Muted redis;

    @Inject
    Queues queues;

    @Inject
    ResearchProcessor research;

    @Test
    void newJobsGoToTheNewMasterWhenTheSwitchNotificationNeverArrives() {
        String before = start("before the switch");
        QueueKeys keys = queues.keys(research.queue());
        assertThat(redis.master().call("EXISTS", keys.job(before)).toLong()).isEqualTo(1);
        await("the service listens to the Sentinel").atMost(STEP).ignoreExceptions()
                .until(() -> redis.sentinel().call("CLIENT", "LIST").toString().contains("sub=1"));

        redis.proxy().freezeOpen();
        redis.sentinel().call("SENTINEL", "FAILOVER", RedisSentinelResource.MASTER);
        String newMasterPort = Integer.toString(redis.replica().port());
        await("the Sentinel switched to the new master").atMost(STEP).ignoreExceptions()
                .until(() -> newMasterPort.equals(redis.sentinel()
                        .call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", RedisSentinelResource.MASTER).get(1).toString()));
        assertThat(redis.master().call("ROLE").get(0).toString()).as("the old master still takes writes")
                .isEqualTo("master");

        String after = await("a new job lands on the new master").atMost(STEP)
                .until(() -> startUnlessUnavailable("after the switch"),
                        jobId -> jobId != null && redis.replica().call("EXISTS", keys.job(jobId)).toLong() == 1);
        assertThat(redis.master().call("EXISTS", keys.job(after)).toLong()).as("nothing on the old master").isZero();
    }
}

package dev.fencedqueue.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedqueue.redis.RedisKeysConfig.WaitReplicas;
import org.junit.jupiter.api.Test;

/** What {@code fq.redis.wait.replicas} makes a new job wait for, {@code auto} above all. */
class ReplicaTrackerTest {

    private static final long HOLD_MS = WaitReplicas.HOLD_SECONDS * 1000L;
    private final ReplicaTracker auto = new ReplicaTracker(WaitReplicas.AUTO, false);

    @Test
    void readsAutoAndNumbersAndRefusesTheRest() {
        assertThat(WaitReplicas.of("auto")).isEqualTo(WaitReplicas.AUTO);
        assertThat(WaitReplicas.of(" AUTO ")).isEqualTo(WaitReplicas.AUTO);
        assertThat(WaitReplicas.of("0")).isEqualTo(new WaitReplicas(false, 0));
        assertThat(WaitReplicas.of("2").count()).isEqualTo(2);
        assertThatThrownBy(() -> WaitReplicas.of("-1")).hasMessageContaining("`fq.redis.wait.replicas`");
        assertThatThrownBy(() -> WaitReplicas.of("some")).hasMessageContaining("got `some`");
    }

    @Test
    void aNumberIsWaitedForWhateverTheMasterHas() {
        ReplicaTracker two = new ReplicaTracker(WaitReplicas.of("2"), false);
        two.observe(new ServerState("a", true, 0), 0);
        assertThat(two.replicas(0)).isEqualTo(2);
        ReplicaTracker none = new ReplicaTracker(WaitReplicas.of("0"), false);
        none.observe(new ServerState("a", true, 1), 0);
        assertThat(none.replicas(0)).isZero();
    }

    @Test
    void autoWaitsForOneReplicaWhileTheMasterHasOneAndForNoneOnALoneRedis() {
        assertThat(auto.replicas(0)).as("before anything is known").isZero();
        auto.observe(new ServerState("a", true, 0), 0);
        assertThat(auto.replicas(0)).as("a lone Redis").isZero();
        auto.observe(new ServerState("a", true, 2), 1_000);
        assertThat(auto.replicas(1_000)).isEqualTo(1);
    }

    @Test
    void autoKeepsWaitingAfterTheMasterLostItsReplicaUntilTheHoldEnds() {
        auto.observe(new ServerState("a", true, 1), 0);
        auto.observe(new ServerState("a", true, 0), 1_000);
        assertThat(auto.replicas(1_000 + HOLD_MS - 1)).as("the replica may have been promoted").isEqualTo(1);
        assertThat(auto.replicas(1_000 + HOLD_MS)).isZero();
    }

    @Test
    void everySentinelAskedAfterTheLossStillNamingTheMasterEndsTheHold() {
        auto.observe(new ServerState("a", true, 1), 0);
        auto.observe(new ServerState("a", true, 0), 1_000);
        auto.observe(new SentinelView("a", "h:1", "s1", false, false), 1_001);
        assertThat(auto.replicas(1_002)).as("one Sentinel did not answer").isEqualTo(1);
        auto.observe(new SentinelView("a", "h:1", "s1", false, true), 999);
        assertThat(auto.replicas(1_002)).as("asked before the loss").isEqualTo(1);
        auto.observe(new SentinelView("a", "h:1", "s1", true, true), 1_001);
        assertThat(auto.replicas(1_002)).as("a Sentinel is failing the master over").isEqualTo(1);
        auto.observe(new SentinelView("a", "h:1", "s1", false, true), 1_001);
        assertThat(auto.replicas(1_002)).isZero();
    }

    @Test
    void autoWaitsWhileASentinelFailsTheMasterOverAndANewMasterStartsAfresh() {
        auto.observe(new ServerState("a", true, 0), 0);
        auto.observe(new SentinelView("a", "h:1", "s1", true, true), 0);
        assertThat(auto.replicas(0)).isEqualTo(1);
        auto.observe(new ServerState("a", true, 1), 100);
        auto.observe(new ServerState("a", true, 0), 200);
        auto.observe(new ServerState("b", true, 0), 300);
        assertThat(auto.replicas(300)).as("the new master has no replica yet").isZero();
    }

    @Test
    void autoWaitsForNoneOnACluster() {
        ReplicaTracker cluster = new ReplicaTracker(WaitReplicas.AUTO, true);
        cluster.observe(new ServerState("a", true, 1), 0);
        assertThat(cluster.replicas(0)).isZero();
    }
}

package dev.fencedqueue.redis;

/**
 * What the Sentinels of the master set say of its master, from {@code SENTINEL MASTER <name>} asked of each.
 *
 * @param runId the {@code run_id} of the master named by the Sentinel with the greatest {@code config-epoch} (the one
 *        that knows of the latest failover); empty when no Sentinel answered or it has not yet read the master's
 *        {@code INFO} (for several seconds after a failover)
 * @param address that master's {@code ip:port} as the Sentinels know it, or {@code null} when none answered
 * @param endpoint the configured URI of that Sentinel, or {@code null} when none answered
 * @param failoverInProgress whether a Sentinel that answered is failing the master over (the leader of a failover
 *        flags it {@code failover_in_progress} until it names the new master)
 * @param allAnswered whether every configured Sentinel answered
 */
record SentinelView(String runId, String address, String endpoint, boolean failoverInProgress,
        boolean allAnswered) {

    /** @return whether a Sentinel named a master whose {@code run_id} is known */
    boolean known() {
        return !runId.isEmpty();
    }
}

package dev.fencedqueue.redis;

import io.vertx.mutiny.redis.client.Response;

/**
 * What the Redis server that the shared connection reaches says of itself.
 *
 * @param runId its {@code run_id} ({@code INFO server}): a random id of the process, new at every start, which
 *        Sentinel reports for the master it names too
 * @param master whether it is a master ({@code ROLE}); {@code false} for a replica (a demoted old master)
 * @param onlineReplicas its replicas in sync ({@code ROLE} lists only those whose initial synchronization is done), 0
 *        for a replica
 */
record ServerState(String runId, boolean master, int onlineReplicas) {

    /**
     * @param info the reply to {@code INFO server}
     * @param role the reply to {@code ROLE}: {@code ["master", offset, [[ip, port, offset], ...]]}, or
     *        {@code ["slave", ...]}
     * @return the state they say
     */
    static ServerState of(Response info, Response role) {
        String runId = "";
        for (String line : info.toString().split("\r?\n")) {
            if (line.startsWith("run_id:")) {
                runId = line.substring("run_id:".length()).trim();
            }
        }
        boolean master = "master".equals(role.get(0).toString());
        return new ServerState(runId, master, master ? role.get(2).size() : 0);
    }
}

package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.tenancy.Tenants;
import dev.fencedqueue.testing.QueueTestSupport;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;

/**
 * What the fair-dispatch tests share: jobs added for a tenant (remembered by id), and activations made in one script
 * call without a worker, where every job is charged the same estimate, so that the order is exact.
 */
abstract class FairDispatchSupport extends QueueTestSupport {

    /** The lock duration of the test's activations, ms: longer than any test. */
    protected static final String LOCK_MS = "30000";

    @Inject
    protected LuaScripts scripts;

    @Inject
    protected Tenants tenants;

    /** The tenant of each job the test added with {@link #addJobs}. */
    protected final Map<String, String> tenantOf = new HashMap<>();

    protected List<String> addJobs(String tenant, int count) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = add(JobOptions.defaults().withTenant(tenant));
            tenantOf.put(id, tenant);
            ids.add(id);
        }
        return ids;
    }

    protected List<String> tenantsOf(List<String> ids) {
        return ids.stream().map(tenantOf::get).toList();
    }

    /** Activates up to {@code count} jobs in one call, as a worker with that many free slots does. */
    protected List<String> activate(int count) {
        Response reply = activateReply(count, "test-" + UUID.randomUUID() + ":");
        assertThat(reply.get(0).toInteger()).as("activation code").isIn(0, 1);
        List<String> ids = new ArrayList<>();
        for (int i = 3; i + 2 < reply.size(); i += 3) {
            ids.add(reply.get(i).toString());
        }
        return ids;
    }

    /** @return the reply of one activation call: code, Redis time, extra, then jobId, fencing token, fields per job */
    protected Response activateReply(int count, String callId) {
        QueueKeys keys = queue.keys();
        return scripts.run(LuaScript.MOVE_TO_ACTIVE, List.of(keys.waitList(), keys.active(),
                keys.prioritized(), keys.delayed(), keys.marker(), keys.meta(), keys.events()),
                List.of(keys.prefix(), Integer.toString(count), callId, LOCK_MS, "worker-F", "100", "100"))
                .await().atMost(TIMEOUT);
    }

    /**
     * Completes one running job with the script a worker calls, activating up to {@code next} jobs in the same call.
     *
     * @param jobId the job
     * @param lockToken its attempt's lock token
     * @param fencingToken its attempt's fencing token
     * @param next jobs to activate in the same call
     * @return the script's reply: codes, then the activation (code, Redis time, extra, 3 entries per job)
     */
    protected Response complete(String jobId, String lockToken, String fencingToken, int next) {
        QueueKeys keys = queue.keys();
        return scripts.run(LuaScript.MOVE_TO_COMPLETED, List.of(keys.active(), keys.completed(),
                keys.waitList(), keys.prioritized(), keys.delayed(), keys.marker(), keys.meta(), keys.events()),
                List.of(keys.prefix(), "100", "100", Integer.toString(next), "test-" + UUID.randomUUID() + ":", LOCK_MS,
                        "worker-F", jobId, lockToken, fencingToken, "\"done\"", "{}"))
                .await().atMost(TIMEOUT);
    }

    /** @return the tenant's weighted usage while it is backlogged (its score in {@code tenants:ready}) */
    protected double score(String tenant) {
        Response score = redis.send(Request.cmd(Command.ZSCORE).arg(queue.keys().tenantsReady()).arg(tenant));
        return Double.parseDouble(score.toString());
    }
}

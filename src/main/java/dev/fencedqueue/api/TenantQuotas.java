package dev.fencedqueue.api;

import java.time.Duration;
import java.time.Instant;

import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.TenantIds;
import dev.fencedqueue.tenancy.Tenants;
import dev.fencedqueue.tenancy.TokenQuota;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The door of a queue whose jobs spend LLM tokens: a tenant whose jobs spent its token quota in the current period
 * ({@code PUT /admin/tenants/{id}}) starts no new job until the period ends. Its running jobs finish; what they spend
 * meanwhile still counts. Periods are calendar days or months, UTC, by this instance's clock.
 */
@ApplicationScoped
public class TenantQuotas {

    private final Tenants tenants;

    public TenantQuotas(Tenants tenants) {
        this.tenants = tenants;
    }

    /**
     * @param queue the queue the job is for, whose jobs' tokens count
     * @param tenant the job's tenant, {@code null} for the default one
     * @return completes when the tenant may start a job; fails with {@link TooManyRequestsException} (429, with
     *         {@code Retry-After} until the period ends) naming the quota and when it resets, and with
     *         {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable
     */
    public Uni<Void> admit(JobQueue queue, String tenant) {
        String id = TenantIds.orDefault(tenant);
        return tenants.settings(id).chain(settings -> {
            TokenQuota quota = settings.tokenQuota();
            if (quota == null) {
                return Uni.createFrom().voidItem();
            }
            Instant now = Instant.now();
            return tenants.tokensUsed(queue.name(), id, quota.period(), now).map(used -> {
                if (!settings.allows(used)) {
                    Instant reset = quota.period().end(now);
                    throw new TooManyRequestsException("tenant `" + id + "` has spent its token quota of "
                            + quota.tokens() + " tokens a " + quota.period().value() + " (" + used + " spent); it "
                            + "resets at " + reset, Duration.between(now, reset));
                }
                return null;
            });
        });
    }
}

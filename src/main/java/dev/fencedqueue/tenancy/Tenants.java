package dev.fencedqueue.tenancy;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.TenantIds;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.Failures;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.telemetry.TenantLabels;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Tenants' settings and what their jobs spent. Settings live in one hash for the fleet, {@code <prefix>:tenants}
 * (tenant id -> {@link TenantSettings} as JSON; no hash tag: read and written alone). The LLM tokens a tenant's jobs
 * spent are counted per queue and calendar period, UTC, in {@code <prefix>:{<queue>}:tenant-tokens:<period id>}
 * (tenant id -> tokens), written by {@code addTokens} with each attempt's tokens, in the job's own hash slot, and what
 * they cost at the model's prices ({@code fq.llm.price.*}) beside them in {@code <prefix>:{<queue>}:tenant-cost:<period
 * id>} (tenant id -> micro-units of the prices' currency). Metrics
 * name the tenants that have settings, and {@value TenantIds#DEFAULT}, one by one, and every other tenant
 * {@value #OTHER} ({@link #metricLabel}: a bounded label set, as Prometheus asks), from a list of them this instance
 * reads again every {@link #LABELS_REFRESH}; they are the {@link TenantLabels} of the worker's metrics.
 */
@ApplicationScoped
public class Tenants implements TenantLabels {

    /** The metric label of the tenants that have no settings. */
    public static final String OTHER = "other";

    /** How often the tenants that metrics name are read again from Redis. */
    static final Duration LABELS_REFRESH = Duration.ofSeconds(30);

    private static final Logger LOG = Logger.getLogger(Tenants.class);

    private final SharedConnection redis;
    private final ObjectMapper json;
    private final String keyPrefix;
    private final String settingsKey;
    private volatile Set<String> labeled = Set.of(TenantIds.DEFAULT);
    private volatile long labelsTimer = -1;

    public Tenants(SharedConnection redis, ObjectMapper json, RedisKeysConfig config) {
        this.redis = redis;
        this.json = json;
        this.keyPrefix = config.keyPrefix();
        this.settingsKey = keyPrefix + ":tenants";
    }

    /**
     * @param tenant a tenant id
     * @return its settings, {@link TenantSettings#DEFAULTS} when none were set; fails with
     *         {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable
     */
    public Uni<TenantSettings> settings(String tenant) {
        return redis.send(Request.cmd(Command.HGET).arg(settingsKey).arg(tenant))
                .map(reply -> reply == null ? TenantSettings.DEFAULTS : parse(reply.toString()));
    }

    /** @return every tenant that has settings, by id; fails as {@link #settings} does */
    public Uni<Map<String, TenantSettings>> all() {
        return redis.send(Request.cmd(Command.HGETALL).arg(settingsKey)).map(reply -> {
            Map<String, TenantSettings> all = new TreeMap<>();
            Replies.toStringMap(reply).forEach((tenant, text) -> all.put(tenant, parse(text)));
            return all;
        });
    }

    /**
     * Sets a tenant's settings, for every instance at once; {@link TenantSettings#DEFAULTS} removes them.
     *
     * @param tenant a valid tenant id ({@link TenantIds})
     * @param settings its settings
     * @return completes once stored; fails as {@link #settings} does
     */
    public Uni<Void> put(String tenant, TenantSettings settings) {
        if (settings.equals(TenantSettings.DEFAULTS)) {
            return remove(tenant).replaceWithVoid();
        }
        return redis.send(Request.cmd(Command.HSET).arg(settingsKey).arg(tenant).arg(settings.write().toString()))
                .invoke(() -> label(tenant, true)).replaceWithVoid();
    }

    /**
     * @param tenant a tenant id
     * @return whether it had settings, which it no longer has; fails as {@link #settings} does
     */
    public Uni<Boolean> remove(String tenant) {
        return redis.send(Request.cmd(Command.HDEL).arg(settingsKey).arg(tenant)).map(reply -> reply.toLong() > 0)
                .invoke(() -> label(tenant, false));
    }

    /**
     * @param tenant a job's tenant, {@code null} for the default one
     * @return its label in metrics: itself when it has settings (as this instance last read them) or is
     *         {@value TenantIds#DEFAULT}, else {@value #OTHER}
     */
    @Override
    public String metricLabel(String tenant) {
        String id = TenantIds.orDefault(tenant);
        return labeled.contains(id) ? id : OTHER;
    }

    /**
     * @return the tenants that metrics name one by one (those with settings, as this instance last read them, and
     *         {@value TenantIds#DEFAULT}); every other tenant is {@value #OTHER}
     */
    public Set<String> namedInMetrics() {
        return labeled;
    }

    /** Reads the tenants that metrics name at startup, and again every {@link #LABELS_REFRESH} until shutdown. */
    void refreshLabels(@Observes StartupEvent event, Vertx vertx) {
        refreshLabels();
        labelsTimer = vertx.setPeriodic(LABELS_REFRESH.toMillis(), id -> refreshLabels());
    }

    void stopRefreshing(@Observes ShutdownEvent event, Vertx vertx) {
        vertx.cancelTimer(labelsTimer);
    }

    private void refreshLabels() {
        all().subscribe().with(all -> {
            Set<String> now = new HashSet<>(all.keySet());
            now.add(TenantIds.DEFAULT);
            labeled = Set.copyOf(now);
        }, failure -> LOG.debugf("the tenants that metrics name were not read again: %s", Failures.describe(failure)));
    }

    private synchronized void label(String tenant, boolean named) {
        Set<String> now = new HashSet<>(labeled);
        if (named) {
            now.add(tenant);
        } else if (!TenantIds.DEFAULT.equals(tenant)) {
            now.remove(tenant);
        }
        labeled = Set.copyOf(now);
    }

    /**
     * @param queue the queue whose jobs' tokens count
     * @param tenant a tenant id
     * @param period the calendar period
     * @param now an instant of that period
     * @return the LLM tokens (prompt and completion) the tenant's jobs of {@code queue} spent in the period holding
     *         {@code now}, 0 when none; fails as {@link #settings} does
     */
    public Uni<Long> tokensUsed(String queue, String tenant, TokenQuota.Period period, Instant now) {
        return redis.send(Request.cmd(Command.HGET).arg(QueueKeys.of(keyPrefix, queue).tenantTokens(period.id(now)))
                .arg(tenant)).map(reply -> reply == null ? 0L : reply.toLong());
    }

    /**
     * @param queue the queue whose jobs' cost counts
     * @param tenant a tenant id
     * @param period the calendar period
     * @param now an instant of that period
     * @return what the LLM tokens of the tenant's jobs of {@code queue} cost in the period holding {@code now}, in
     *         micro-units of the prices' currency, counted while prices were set ({@code fq.llm.price.*}); 0 when none;
     *         fails as {@link #settings} does
     */
    public Uni<Long> costUsed(String queue, String tenant, TokenQuota.Period period, Instant now) {
        return redis.send(Request.cmd(Command.HGET).arg(QueueKeys.of(keyPrefix, queue).tenantCost(period.id(now)))
                .arg(tenant)).map(reply -> reply == null ? 0L : reply.toLong());
    }

    /**
     * Copies every tenant's weight and concurrency limit into each queue's own hashes,
     * {@code <prefix>:{<queue>}:tenants:weight} (tenant id -> weight; tenants of weight 1 have no field) and
     * {@code <prefix>:{<queue>}:tenants:concurrency} (tenant id -> its most running jobs; tenants without a limit have
     * no field) and {@code <prefix>:{<queue>}:tenants:rate} (tenant id -> {@code <max>:<window ms>}), where fair
     * dispatch reads them inside the queue's hash slot ({@code fairShare.lua}). A limit removed or
     * raised lets a tenant held at it go on at the queue's next activation. Called after a tenant's settings change and every {@link #LABELS_REFRESH} for the
     * queues an instance serves, so that a queue first served after the change gets it too.
     *
     * @param queues the queue names, may be empty
     * @return completes once written; fails as {@link #settings} does
     */
    public Uni<Void> syncWeights(Collection<String> queues) {
        if (queues.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return all().chain(all -> {
            Map<String, String> weights = new TreeMap<>();
            Map<String, String> limits = new TreeMap<>();
            Map<String, String> rates = new TreeMap<>();
            all.forEach((tenant, settings) -> {
                if (settings.weight() != null && settings.weight() != 1) {
                    weights.put(tenant, Double.toString(settings.weight()));
                }
                if (settings.concurrency() != null) {
                    limits.put(tenant, Integer.toString(settings.concurrency()));
                }
                if (settings.rateLimit() != null) {
                    rates.put(tenant, settings.rateLimit().max() + ":" + settings.rateLimit().duration());
                }
            });
            List<Uni<Void>> writes = new ArrayList<>();
            for (String queue : queues) {
                QueueKeys keys = QueueKeys.of(keyPrefix, queue);
                writes.add(syncWeights(keys.tenantWeights(), weights).chain(() -> syncWeights(keys.tenantLimits(), limits))
                        .chain(() -> syncWeights(keys.tenantRates(), rates)).chain(() -> wakeForHeldTenants(keys)));
            }
            return Uni.join().all(writes).andFailFast().replaceWithVoid();
        });
    }

    /**
     * Wakes a worker of the queue when tenants are held at their concurrency limit: the activation it then makes lets
     * go those whose limit was raised or removed, without waiting for one of their running jobs to end.
     */
    private Uni<Void> wakeForHeldTenants(QueueKeys keys) {
        return redis.send(Request.cmd(Command.EXISTS).arg(keys.tenantsCapped())).chain(held -> held.toLong() == 0
                ? Uni.createFrom().voidItem()
                : redis.send(Request.cmd(Command.ZADD).arg(keys.marker()).arg(0).arg("0")).replaceWithVoid());
    }

    /** Makes one queue's hash hold exactly {@code weights}: the new values written first, then the old fields removed. */
    private Uni<Void> syncWeights(String key, Map<String, String> weights) {
        return redis.send(Request.cmd(Command.HKEYS).arg(key)).chain(stored -> {
            Request hdel = Request.cmd(Command.HDEL).arg(key);
            boolean stale = false;
            for (var field : stored) {
                if (!weights.containsKey(field.toString())) {
                    hdel.arg(field.toString());
                    stale = true;
                }
            }
            Uni<?> written = Uni.createFrom().voidItem();
            if (!weights.isEmpty()) {
                Request hset = Request.cmd(Command.HSET).arg(key);
                weights.forEach((tenant, weight) -> hset.arg(tenant).arg(weight));
                written = redis.send(hset);
            }
            boolean removeStale = stale;
            return written.chain(() -> removeStale ? redis.send(hdel) : Uni.createFrom().nullItem());
        }).replaceWithVoid();
    }

    private TenantSettings parse(String text) {
        try {
            return TenantSettings.read(json.readTree(text));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("tenant settings in Redis are not JSON: " + text, e);
        }
    }
}

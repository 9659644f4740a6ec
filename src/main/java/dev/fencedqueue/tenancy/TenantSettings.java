package dev.fencedqueue.tenancy;

import java.util.Iterator;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What an operator set for a tenant ({@code PUT /admin/tenants/{id}}), kept in Redis so that every instance obeys it
 * at once. JSON: {@code {"weight", "concurrency", "rateLimit": {"max", "duration"}, "tokenQuota": {"tokens", "period":
 * "day" | "month"}}}, every field optional.
 *
 * @param weight its share of each queue under fair dispatch relative to the other tenants' (a tenant of weight 2 gets
 *        twice the slots of one of weight 1 when both have jobs waiting), &gt; 0 and at most {@value #MAX_WEIGHT};
 *        {@code null} for the default, 1
 * @param concurrency the most of its jobs that run at once in each queue, fleet-wide (1 to {@value #MAX_CONCURRENCY}),
 *        enforced by fair dispatch; {@code null} for no limit
 * @param rateLimit the most of its jobs that start per window in each queue, fleet-wide, enforced by fair dispatch;
 *        {@code null} for no limit
 * @param tokenQuota the LLM tokens its jobs may spend per period, {@code null} for no limit
 */
public record TenantSettings(Double weight, Integer concurrency, RateLimit rateLimit, TokenQuota tokenQuota) {

    /** A tenant nobody set anything for. */
    public static final TenantSettings DEFAULTS = new TenantSettings(null, null, null, null);

    /** The longest rate-limit window: a day, ms. */
    public static final long MAX_WINDOW_MS = 86_400_000;

    /**
     * A tenant's rate limit.
     *
     * @param max the most of its jobs that start per window, 1 to {@value #MAX_CONCURRENCY}
     * @param duration the window, ms, 1 to {@value #MAX_WINDOW_MS}
     */
    public record RateLimit(int max, long duration) {
    }

    /** The largest concurrency limit. */
    public static final int MAX_CONCURRENCY = 1_000_000;

    /** The largest weight: a million times another tenant's share is as good as all of it. */
    public static final double MAX_WEIGHT = 1_000_000;

    private static final Set<String> FIELDS = Set.of("weight", "concurrency", "rateLimit", "tokenQuota");

    /**
     * @param node the JSON, {@code null} or empty for {@link #DEFAULTS}
     * @return the settings
     * @throws IllegalArgumentException naming the field at fault ({@code tokenQuota.tokens}, or one that is not a
     *         setting)
     */
    public static TenantSettings read(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return DEFAULTS;
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("the body must be a JSON object of tenant settings (" + FIELDS + ")");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new IllegalArgumentException("`" + name + "` is not a tenant setting (one of " + FIELDS + ")");
            }
        }
        return new TenantSettings(readWeight(node.get("weight")), readConcurrency(node.get("concurrency")),
                readRate(node.get("rateLimit")), readQuota(node.get("tokenQuota")));
    }

    private static RateLimit readRate(JsonNode rate) {
        if (rate == null || rate.isNull()) {
            return null;
        }
        if (!rate.isObject()) {
            throw new IllegalArgumentException("`rateLimit` must be an object {max, duration}");
        }
        for (Iterator<String> names = rate.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!name.equals("max") && !name.equals("duration")) {
                throw new IllegalArgumentException("`rateLimit." + name + "` is not part of a rate limit (max, duration)");
            }
        }
        JsonNode max = rate.get("max");
        if (max == null || !max.isIntegralNumber() || !max.canConvertToInt() || max.asInt() < 1
                || max.asInt() > MAX_CONCURRENCY) {
            throw new IllegalArgumentException("`rateLimit.max` must be a whole number of starts from 1 to 1000000");
        }
        JsonNode duration = rate.get("duration");
        if (duration == null || !duration.isIntegralNumber() || !duration.canConvertToLong() || duration.asLong() < 1
                || duration.asLong() > MAX_WINDOW_MS) {
            throw new IllegalArgumentException("`rateLimit.duration` must be the window in ms, 1 to 86400000 (a day)");
        }
        return new RateLimit(max.asInt(), duration.asLong());
    }

    private static Integer readConcurrency(JsonNode concurrency) {
        if (concurrency == null || concurrency.isNull()) {
            return null;
        }
        if (!concurrency.isIntegralNumber() || !concurrency.canConvertToInt() || concurrency.asInt() < 1
                || concurrency.asInt() > MAX_CONCURRENCY) {
            throw new IllegalArgumentException("`concurrency` must be a whole number of jobs from 1 to 1000000");
        }
        return concurrency.asInt();
    }

    private static Double readWeight(JsonNode weight) {
        if (weight == null || weight.isNull()) {
            return null;
        }
        if (!weight.isNumber() || !(weight.asDouble() > 0) || weight.asDouble() > MAX_WEIGHT) {
            throw new IllegalArgumentException("`weight` must be a number above 0 and at most 1000000 (the default is 1)");
        }
        return weight.asDouble();
    }

    private static TokenQuota readQuota(JsonNode quota) {
        if (quota == null || quota.isNull()) {
            return null;
        }
        if (!quota.isObject()) {
            throw new IllegalArgumentException("`tokenQuota` must be an object {tokens, period}");
        }
        for (Iterator<String> names = quota.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!name.equals("tokens") && !name.equals("period")) {
                throw new IllegalArgumentException("`tokenQuota." + name + "` is not part of a token quota (tokens, period)");
            }
        }
        JsonNode tokens = quota.get("tokens");
        if (tokens == null || !tokens.isIntegralNumber() || !tokens.canConvertToLong()) {
            throw new IllegalArgumentException("`tokenQuota.tokens` must be a whole number of tokens");
        }
        JsonNode period = quota.get("period");
        if (period == null || !period.isTextual()) {
            throw new IllegalArgumentException("`tokenQuota.period` must be `day` or `month`");
        }
        return new TokenQuota(tokens.asLong(), TokenQuota.Period.of(period.asText()));
    }

    /** @return these settings as JSON, in the shape {@link #read} reads */
    public ObjectNode write() {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        if (weight != null) {
            node.put("weight", weight);
        }
        if (concurrency != null) {
            node.put("concurrency", concurrency);
        }
        if (rateLimit != null) {
            node.putObject("rateLimit").put("max", rateLimit.max()).put("duration", rateLimit.duration());
        }
        if (tokenQuota != null) {
            node.putObject("tokenQuota").put("tokens", tokenQuota.tokens()).put("period", tokenQuota.period().value());
        }
        return node;
    }

    /** @return the weight fair dispatch gives the tenant: as set, or 1 */
    public double effectiveWeight() {
        return weight == null ? 1 : weight;
    }

    /**
     * @param used the tokens the tenant's jobs spent in the quota's period so far
     * @return whether the tenant may start a job: no quota, or {@code used} below it
     */
    public boolean allows(long used) {
        return tokenQuota == null || used < tokenQuota.tokens();
    }
}

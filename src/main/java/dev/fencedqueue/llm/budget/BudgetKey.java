package dev.fencedqueue.llm.budget;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Which LLM budget a call spends: one per endpoint and model, as providers limit an organisation per model. Its keys
 * share one hash tag, {@code <prefix>:{llm:<id>}:budget} (a hash) and {@code <prefix>:{llm:<id>}:calls} (the calls in
 * flight), the id being the first 16 hex digits of the SHA-256 of the endpoint and the model, so that any URL and
 * model name make a valid key.
 *
 * @param endpoint the LLM server's URL, not {@code null}
 * @param model the model, empty when the server has one
 */
public record BudgetKey(String endpoint, String model) {

    public BudgetKey {
        Objects.requireNonNull(endpoint, "endpoint");
        model = model == null ? "" : model;
    }

    /** @return the budget's id: 16 hex digits */
    public String id() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((endpoint + "\n" + model).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /**
     * @param keyPrefix the service's key prefix ({@code fq.redis.key-prefix})
     * @return the budget's hash and its calls in flight, in that order
     */
    List<String> keys(String keyPrefix) {
        String base = base(keyPrefix);
        return List.of(base + "budget", base + "calls");
    }

    /**
     * @param keyPrefix the service's key prefix
     * @return the keys a reservation reads: {@link #keys}, then the budget's line of held-back jobs (a sorted set), in
     *         the same hash slot
     */
    List<String> reserveKeys(String keyPrefix) {
        String base = base(keyPrefix);
        return List.of(base + "budget", base + "calls", base + "line");
    }

    /** The start of this budget's keys: the prefix and the budget's hash tag, so that all of them share one slot. */
    private String base(String keyPrefix) {
        return keyPrefix + ":{llm:" + id() + "}:";
    }
}

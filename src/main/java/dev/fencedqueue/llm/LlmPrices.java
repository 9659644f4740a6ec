package dev.fencedqueue.llm;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.OptionalLong;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * What an LLM call's tokens cost at the model's prices ({@code fq.llm.price.input} and {@code output}, per million
 * tokens), in <em>micro-units</em> of the prices' currency (millionths of a USD when the prices are in USD): a price
 * per million tokens times a count of tokens is micro-units exactly, so costs are whole numbers wherever they are added
 * up (Redis counts them with {@code HINCRBY}, never as floats); only a price with decimals can give a fraction of a
 * micro-unit, rounded once per call. The prices are read at each call.
 */
@ApplicationScoped
public class LlmPrices {

    private static final double MICROS_PER_UNIT = 1_000_000d;

    private final LlmConfig config;

    public LlmPrices(LlmConfig config) {
        this.config = config;
    }

    /** @return whether the model's prices are set, so that costs are counted and shown */
    public boolean isSet() {
        LlmConfig.Price price = config.price();
        return price.input().isPresent() && price.output().isPresent();
    }

    /**
     * @param promptTokens prompt (input) tokens, at least 0
     * @param completionTokens completion (output) tokens, at least 0
     * @return what they cost in micro-units, rounded half up to a whole one; empty when no prices are set
     * @throws IllegalArgumentException when a count is negative
     */
    public OptionalLong micros(long promptTokens, long completionTokens) {
        if (promptTokens < 0 || completionTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative, were " + promptTokens + " and "
                    + completionTokens);
        }
        LlmConfig.Price price = config.price();
        if (price.input().isEmpty() || price.output().isEmpty()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(micros(price.input().get(), price.output().get(), promptTokens, completionTokens));
    }

    /**
     * @param input the price of a million prompt tokens, must not be {@code null}
     * @param output the price of a million completion tokens, must not be {@code null}
     * @param promptTokens prompt tokens
     * @param completionTokens completion tokens
     * @return what they cost in micro-units of the prices' currency, rounded half up to a whole one
     */
    static long micros(BigDecimal input, BigDecimal output, long promptTokens, long completionTokens) {
        return input.multiply(BigDecimal.valueOf(promptTokens))
                .add(output.multiply(BigDecimal.valueOf(completionTokens)))
                .setScale(0, RoundingMode.HALF_UP).longValueExact();
    }

    /**
     * @param micros a cost in micro-units
     * @return it in currency units, as JSON and Prometheus show it (e.g. {@code 1234} is {@code 0.001234}: 6 decimals
     *         at most)
     */
    public static double units(long micros) {
        return micros / MICROS_PER_UNIT;
    }
}

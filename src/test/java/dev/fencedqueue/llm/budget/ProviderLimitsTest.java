package dev.fencedqueue.llm.budget;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Reading a provider's rate-limit headers: OpenAI's, Anthropic's, and the waits a {@code 429} asks for. */
class ProviderLimitsTest {

    @Test
    void readsOpenAisHeaders() {
        ProviderLimits limits = ProviderLimits.from(Map.of("x-ratelimit-limit-requests", "60",
                "x-ratelimit-remaining-requests", "59", "x-ratelimit-reset-requests", "1s",
                "x-ratelimit-limit-tokens", "150000", "x-ratelimit-remaining-tokens", "149984",
                "x-ratelimit-reset-tokens", "6m0s")::get);
        assertThat(limits).isEqualTo(new ProviderLimits(60, 59, 150_000, 149_984, java.util.Optional.empty(), 1_000,
                360_000));
        assertThat(limits.saysAnything()).isTrue();
    }

    @Test
    void readsAnthropicsHeaders() {
        ProviderLimits limits = ProviderLimits.from(Map.of("anthropic-ratelimit-requests-limit", "50",
                "anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-tokens-limit", "40000",
                "anthropic-ratelimit-tokens-remaining", "39000", "retry-after", "12",
                "anthropic-ratelimit-requests-reset", java.time.OffsetDateTime.now().plusSeconds(90).toString())::get);
        assertThat(limits.requestLimit()).isEqualTo(50);
        assertThat(limits.requestsRemaining()).isZero();
        assertThat(limits.tokenLimit()).isEqualTo(40_000);
        assertThat(limits.retryAfter()).contains(Duration.ofSeconds(12));
        assertThat(limits.requestsReset()).as("an RFC 3339 time, 90 s from now").isBetween(60_000L, 90_000L);
        assertThat(limits.tokensReset()).as("not given").isEqualTo(-1);
    }

    @Test
    void aWaitComesFromRetryAfterMsThenRetryAfterThenTheResetOfASpentLimit() {
        assertThat(ProviderLimits.from(Map.of("retry-after-ms", "1500", "retry-after", "2")::get).retryAfter())
                .contains(Duration.ofMillis(1_500));
        assertThat(ProviderLimits.from(Map.of("x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "1m30.5s",
                "x-ratelimit-remaining-requests", "3", "x-ratelimit-reset-requests", "9m")::get).retryAfter())
                .as("only the spent limit's reset").contains(Duration.ofMillis(90_500));
        assertThat(ProviderLimits.from(Map.<String, String>of()::get).saysAnything()).isFalse();
        assertThat(ProviderLimits.from(Map.of("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")::get).retryAfter())
                .as("a date reads as nothing").isEmpty();
    }

    @Test
    void readsGoDurations() {
        assertThat(ProviderLimits.goDuration("120ms")).isEqualTo(Duration.ofMillis(120));
        assertThat(ProviderLimits.goDuration("6m0s")).isEqualTo(Duration.ofMinutes(6));
        assertThat(ProviderLimits.goDuration("1h2m3.004s")).isEqualTo(Duration.ofMillis(3_723_004));
        assertThat(ProviderLimits.goDuration("soon")).isEqualTo(Duration.ZERO);
    }
}

package dev.fencedqueue.llm.budget;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an LLM provider's answer says of its limits, from its headers: OpenAI's {@code x-ratelimit-limit-requests},
 * {@code x-ratelimit-remaining-requests}, {@code x-ratelimit-reset-requests} and the same for {@code tokens} (resets as
 * Go durations: {@code 6m0s}, {@code 1.5s}, {@code 120ms}: the time until the limit is back to its initial state),
 * Anthropic's {@code anthropic-ratelimit-requests-limit}, {@code -requests-remaining}, {@code -requests-reset} and the
 * same for {@code tokens} (resets as RFC 3339 times at which the limit is fully replenished), and
 * {@code retry-after-ms} or {@code retry-after} (seconds; RFC 9110's HTTP date is not used by these providers and reads
 * as absent). Numbers that are absent or unreadable are -1 (0 for a limit).
 *
 * @param requestLimit requests per minute, 0 when not given
 * @param requestsRemaining requests left, -1 when not given
 * @param tokenLimit tokens per minute, 0 when not given
 * @param tokensRemaining tokens left, -1 when not given
 * @param retryAfter how long the provider asks callers to wait: {@code retry-after-ms}, else {@code retry-after}, else
 *        the later of the resets of a limit with nothing left; empty when it says nothing
 * @param requestsReset how long until the request limit is full again, ms; -1 when not given
 * @param tokensReset how long until the token limit is full again, ms; -1 when not given
 */
public record ProviderLimits(long requestLimit, long requestsRemaining, long tokenLimit, long tokensRemaining,
        Optional<Duration> retryAfter, long requestsReset, long tokensReset) {

    /** Limits without resets: what a provider that sends no reset header says. */
    public ProviderLimits(long requestLimit, long requestsRemaining, long tokenLimit, long tokensRemaining,
            Optional<Duration> retryAfter) {
        this(requestLimit, requestsRemaining, tokenLimit, tokensRemaining, retryAfter, -1, -1);
    }

    private static final Pattern GO_DURATION = Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m(?!s))?(?:(\\d+(?:\\.\\d+)?)s)?"
            + "(?:(\\d+(?:\\.\\d+)?)ms)?");

    /**
     * @param header a header's value by its name (any case the caller's HTTP library matches), {@code null} when absent
     * @return what the headers say
     */
    public static ProviderLimits from(Function<String, String> header) {
        long requestLimit = Math.max(0, first(header, "x-ratelimit-limit-requests", "anthropic-ratelimit-requests-limit"));
        long requestsRemaining = first(header, "x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining");
        long tokenLimit = Math.max(0, first(header, "x-ratelimit-limit-tokens", "anthropic-ratelimit-tokens-limit"));
        long tokensRemaining = first(header, "x-ratelimit-remaining-tokens", "anthropic-ratelimit-tokens-remaining");
        long requestsReset = reset(header, "x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset");
        long tokensReset = reset(header, "x-ratelimit-reset-tokens", "anthropic-ratelimit-tokens-reset");
        Optional<Duration> retryAfter = Optional.empty();
        long millis = number(header.apply("retry-after-ms"));
        long seconds = number(header.apply("retry-after"));
        if (millis >= 0) {
            retryAfter = Optional.of(Duration.ofMillis(millis));
        } else if (seconds >= 0) {
            retryAfter = Optional.of(Duration.ofSeconds(seconds));
        } else {
            Duration reset = Duration.ZERO;
            if (requestsRemaining == 0) {
                reset = later(reset, goDuration(header.apply("x-ratelimit-reset-requests")));
            }
            if (tokensRemaining == 0) {
                reset = later(reset, goDuration(header.apply("x-ratelimit-reset-tokens")));
            }
            retryAfter = reset.isZero() ? Optional.empty() : Optional.of(reset);
        }
        return new ProviderLimits(requestLimit, requestsRemaining, tokenLimit, tokensRemaining, retryAfter,
                requestsReset, tokensReset);
    }

    /** @return whether the headers said anything of the provider's limits */
    public boolean saysAnything() {
        return requestLimit > 0 || requestsRemaining >= 0 || tokenLimit > 0 || tokensRemaining >= 0;
    }

    /**
     * @param text a Go duration as OpenAI writes its resets ({@code 6m0s}, {@code 1.5s}, {@code 120ms}, {@code 1h2m3s}),
     *        may be {@code null}
     * @return it, {@link Duration#ZERO} when absent or unreadable
     */
    static Duration goDuration(String text) {
        return Duration.ofMillis(Math.max(0, goMillis(text)));
    }

    /** @return a Go duration in ms, rounded up; -1 when absent or unreadable */
    private static long goMillis(String text) {
        if (text == null || text.isBlank()) {
            return -1;
        }
        Matcher parts = GO_DURATION.matcher(text.trim());
        if (!parts.matches()) {
            return -1;
        }
        double millis = 0;
        millis += parts.group(1) == null ? 0 : Long.parseLong(parts.group(1)) * 3_600_000d;
        millis += parts.group(2) == null ? 0 : Long.parseLong(parts.group(2)) * 60_000d;
        millis += parts.group(3) == null ? 0 : Double.parseDouble(parts.group(3)) * 1000;
        millis += parts.group(4) == null ? 0 : Double.parseDouble(parts.group(4));
        return Math.round(Math.ceil(millis));
    }

    /** @return the time until a limit is full again, ms: OpenAI's Go duration, else Anthropic's RFC 3339 time; -1 */
    private static long reset(Function<String, String> header, String openAi, String anthropic) {
        long millis = goMillis(header.apply(openAi));
        if (millis >= 0) {
            return millis;
        }
        String time = header.apply(anthropic);
        if (time == null || time.isBlank()) {
            return -1;
        }
        try {
            return Math.max(0, Duration.between(Instant.now(), OffsetDateTime.parse(time.trim()).toInstant()).toMillis());
        } catch (DateTimeParseException e) {
            return -1;
        }
    }

    private static Duration later(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static long first(Function<String, String> header, String openAi, String anthropic) {
        long value = number(header.apply(openAi));
        return value >= 0 ? value : number(header.apply(anthropic));
    }

    private static long number(String text) {
        if (text == null) {
            return -1;
        }
        try {
            return Math.max(-1, Math.round(Double.parseDouble(text.trim())));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}

package dev.fencedqueue.simulator;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fencedqueue.config.SimulatorConfig;
import dev.fencedqueue.config.SimulatorConfig.OutageKind;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The simulator as a provider's front door: the limits its OpenAI endpoints enforce (requests and tokens per minute,
 * {@code fq.simulator.provider.requests-per-minute} and {@code tokens-per-minute}) and its outages ({@code fq.simulator.provider.outage},
 * {@code PUT /simulator/provider/outage}; {@code PUT /simulator/provider} sets the limits at run time), answered as OpenAI answers them: every admitted request carries
 * {@code x-ratelimit-limit-requests}, {@code x-ratelimit-remaining-requests}, {@code x-ratelimit-reset-requests} and the
 * same for tokens (resets as durations such as {@code 6m0s} or {@code 120ms}); a refused one gets {@code 429} with
 * {@code retry-after} (seconds), {@code retry-after-ms} and an error object of type {@code requests} or {@code tokens},
 * code {@code rate_limit_exceeded} (OpenAI's "Rate limits" guide). Each limit is a token bucket of a minute's capacity
 * that refills evenly over the minute (Bucket4j), as OpenAI's limits replenish continuously.
 */
@ApplicationScoped
public class SimulatedProvider {

    /**
     * What a request gets at the door.
     *
     * @param status 0 when admitted, else the status to answer ({@code 429}, {@code 500}, {@code 503})
     * @param headers the headers to send either way (the rate-limit headers; {@code retry-after} on a {@code 429})
     * @param body the error object to send when refused (OpenAI's {@code {"error": {...}}}), {@code null} when admitted
     * @param reset whether to close the connection without any response (an outage of kind {@code reset})
     */
    public record Admission(int status, Map<String, String> headers, String body, boolean reset) {

        /** @return whether the request may be served */
        public boolean admitted() {
            return status == 0;
        }
    }

    /**
     * What {@code GET /simulator/provider} shows.
     *
     * @param requestsPerMinute the request limit, {@code null} for none
     * @param tokensPerMinute the token limit, {@code null} for none
     * @param remainingRequests requests that would be admitted now, {@code null} without a limit
     * @param remainingTokens tokens that would be admitted now, {@code null} without a limit
     * @param admitted requests admitted since startup
     * @param rateLimited requests answered {@code 429} since startup
     * @param failed requests failed by an outage since startup
     * @param outageUntil when the current outage ends, {@code null} when none
     * @param outageKind how requests fail during it ({@code unavailable}, {@code error}, {@code reset}), {@code null}
     *        when none
     */
    public record State(Long requestsPerMinute, Long tokensPerMinute, Long remainingRequests, Long remainingTokens,
            long admitted, long rateLimited, long failed, Instant outageUntil, String outageKind) {
    }

    private record Outage(Instant until, OutageKind kind) {
    }

    /** The limits in force: a limit of {@code null} has no bucket. */
    private record Limits(Long requestLimit, Long tokenLimit, Bucket requests, Bucket tokens) {

        static Limits of(Long requestsPerMinute, Long tokensPerMinute) {
            return new Limits(requestsPerMinute, tokensPerMinute,
                    requestsPerMinute == null ? null : perMinute(requestsPerMinute),
                    tokensPerMinute == null ? null : perMinute(tokensPerMinute));
        }
    }

    private final ObjectMapper json;
    private volatile Limits limits;
    private final AtomicLong admitted = new AtomicLong();
    private final AtomicLong rateLimited = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile Outage outage;

    public SimulatedProvider(SimulatorConfig config, ObjectMapper json) {
        this.json = json;
        this.limits = Limits.of(config.provider().requestsPerMinute().isPresent() ? (long) config.provider().requestsPerMinute().getAsInt()
                : null, config.provider().tokensPerMinute().isPresent() ? (long) config.provider().tokensPerMinute().getAsInt() : null);
        config.provider().outage().ifPresent(length -> start(length, config.provider().outageKind()));
    }

    /**
     * Admits a request or refuses it: during an outage it fails; past a limit it gets {@code 429}; else it takes one
     * request and {@code requestedTokens} tokens from the limits.
     *
     * @param requestedTokens the tokens the request may use: its prompt's plus its most output tokens (0 or more)
     * @return the admission, with the headers to send
     */
    public Admission admit(long requestedTokens) {
        Outage now = outage;
        if (now != null && Instant.now().isBefore(now.until())) {
            failed.incrementAndGet();
            return switch (now.kind()) {
                case RESET -> new Admission(503, Map.of(), null, true);
                case ERROR -> new Admission(500, Map.of(), error("The server had an error while processing your "
                        + "request. Sorry about that!", "server_error", null), false);
                case UNAVAILABLE -> new Admission(503, Map.of(), error("The server is overloaded or not ready yet.",
                        "server_error", null), false);
            };
        }
        Limits in = limits;
        Bucket requests = in.requests();
        Bucket tokens = in.tokens();
        Long requestLimit = in.requestLimit();
        Long tokenLimit = in.tokenLimit();
        Map<String, String> headers = new LinkedHashMap<>();
        ConsumptionProbe request = requests == null ? null : requests.tryConsumeAndReturnRemaining(1);
        if (request != null && !request.isConsumed()) {
            describe(headers, "requests", requestLimit, request.getRemainingTokens(), request.getNanosToWaitForReset());
            return refused(headers, request.getNanosToWaitForRefill(), "requests", "requests per min (RPM)",
                    requestLimit, 1);
        }
        if (request != null) {
            describe(headers, "requests", requestLimit, request.getRemainingTokens(), request.getNanosToWaitForReset());
        }
        if (tokens != null) {
            if (requestedTokens > tokenLimit) {
                undo(requests, request);
                rateLimited.incrementAndGet();
                return new Admission(429, headers, error("Request too large on tokens per min (TPM): Limit " + tokenLimit
                        + ", Requested " + requestedTokens + ".", "tokens", "rate_limit_exceeded"), false);
            }
            ConsumptionProbe probe = tokens.tryConsumeAndReturnRemaining(requestedTokens);
            describe(headers, "tokens", tokenLimit, probe.getRemainingTokens(), probe.getNanosToWaitForReset());
            if (!probe.isConsumed()) {
                undo(requests, request);
                return refused(headers, probe.getNanosToWaitForRefill(), "tokens", "tokens per min (TPM)", tokenLimit,
                        requestedTokens);
            }
        }
        admitted.incrementAndGet();
        return new Admission(0, headers, null, false);
    }

    /**
     * Starts an outage now, replacing any under way.
     *
     * @param length how long it lasts, positive
     * @param kind how requests fail meanwhile
     */
    public void start(Duration length, OutageKind kind) {
        outage = new Outage(Instant.now().plus(length), kind);
    }

    /**
     * Replaces the limits, full: as a provider that changed an organisation's tier.
     *
     * @param requestsPerMinute the request limit, {@code null} for none
     * @param tokensPerMinute the token limit, {@code null} for none
     */
    public void limit(Long requestsPerMinute, Long tokensPerMinute) {
        limits = Limits.of(requestsPerMinute, tokensPerMinute);
    }

    /** Ends the outage under way, if any. */
    public void end() {
        outage = null;
    }

    /** @return the limits, what is left of them, the counters and the outage */
    public State state() {
        Outage now = outage;
        boolean on = now != null && Instant.now().isBefore(now.until());
        Limits in = limits;
        return new State(in.requestLimit(), in.tokenLimit(), in.requests() == null ? null
                : in.requests().getAvailableTokens(), in.tokens() == null ? null : in.tokens().getAvailableTokens(),
                admitted.get(), rateLimited.get(), failed.get(),
                on ? now.until() : null, on ? now.kind().name().toLowerCase(Locale.ROOT) : null);
    }

    private Admission refused(Map<String, String> headers, long waitNanos, String type, String limitName, long limit,
            long requested) {
        rateLimited.incrementAndGet();
        long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos) + 1);
        headers.put("retry-after", Long.toString((waitMillis + 999) / 1000));
        headers.put("retry-after-ms", Long.toString(waitMillis));
        return new Admission(429, headers, error("Rate limit reached for " + limitName + ": Limit " + limit
                + ", Requested " + requested + ". Please try again in " + goDuration(waitMillis) + ".", type,
                "rate_limit_exceeded"), false);
    }

    /** Gives back the request a refused token count took. */
    private static void undo(Bucket requests, ConsumptionProbe request) {
        if (request != null) {
            requests.addTokens(1);
        }
    }

    private static void describe(Map<String, String> headers, String kind, long limit, long remaining, long resetNanos) {
        headers.put("x-ratelimit-limit-" + kind, Long.toString(limit));
        headers.put("x-ratelimit-remaining-" + kind, Long.toString(Math.max(0, remaining)));
        headers.put("x-ratelimit-reset-" + kind, goDuration(TimeUnit.NANOSECONDS.toMillis(resetNanos)));
    }

    private String error(String message, String type, String code) {
        ObjectNode error = json.createObjectNode();
        error.putObject("error").put("message", message).put("type", type).putNull("param").put("code", code);
        return error.toString();
    }

    private static Bucket perMinute(long limit) {
        return Bucket.builder().addLimit(bandwidth -> bandwidth.capacity(limit).refillGreedy(limit, Duration.ofMinutes(1)))
                .build();
    }

    /**
     * @param millis a duration, ms (0 or more)
     * @return it as OpenAI writes its reset headers (Go's duration format): {@code 120ms}, {@code 1s}, {@code 1.5s},
     *         {@code 6m0s}, {@code 1h2m3s}
     */
    static String goDuration(long millis) {
        if (millis < 1000) {
            return millis + "ms";
        }
        long hours = millis / 3_600_000;
        long minutes = millis / 60_000 % 60;
        long seconds = millis / 1000 % 60;
        long rest = millis % 1000;
        StringBuilder text = new StringBuilder();
        if (hours > 0) {
            text.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            text.append(minutes).append('m');
        }
        text.append(seconds);
        if (rest > 0) {
            text.append('.').append(String.format("%03d", rest).replaceAll("0+$", ""));
        }
        return text.append('s').toString();
    }
}

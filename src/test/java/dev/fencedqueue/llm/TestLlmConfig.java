package dev.fencedqueue.llm;

import java.time.Duration;
import java.util.Optional;

import dev.fencedqueue.config.LlmConfig;

/**
 * An {@link LlmConfig} for clients a test builds itself: the service's settings with a few replaced (the URL, the
 * protocol, the idle timeout, retries, the API key, the size cap).
 */
final class TestLlmConfig implements LlmConfig {

    private final LlmConfig base;
    private Optional<String> url = Optional.empty();
    private Protocol protocol;
    private Duration idleTimeout;
    private Optional<String> apiKey = Optional.empty();
    private Integer maxResponseChars;
    private int maxRetries = 0;
    private Duration retryDelay = Duration.ofMillis(50);
    private Duration maxDelay = Duration.ofSeconds(5);

    TestLlmConfig(LlmConfig base) {
        this.base = base;
        this.protocol = base.protocol();
        this.idleTimeout = base.idleTimeout();
    }

    TestLlmConfig url(String url) {
        this.url = Optional.of(url);
        return this;
    }

    TestLlmConfig protocol(Protocol protocol) {
        this.protocol = protocol;
        return this;
    }

    TestLlmConfig idleTimeout(Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
        return this;
    }

    TestLlmConfig apiKey(String apiKey) {
        this.apiKey = Optional.of(apiKey);
        return this;
    }

    TestLlmConfig maxResponseChars(int maxResponseChars) {
        this.maxResponseChars = maxResponseChars;
        return this;
    }

    TestLlmConfig retries(int maxRetries, Duration delay, Duration maxDelay) {
        this.maxRetries = maxRetries;
        this.retryDelay = delay;
        this.maxDelay = maxDelay;
        return this;
    }

    @Override
    public Protocol protocol() {
        return protocol;
    }

    @Override
    public Resume resume() {
        return base.resume();
    }

    @Override
    public Optional<java.util.List<String>> tools() {
        return base.tools();
    }

    @Override
    public Optional<String> reasoningSummary() {
        return base.reasoningSummary();
    }

    @Override
    public Duration pollInterval() {
        return base.pollInterval();
    }

    @Override
    public Duration queuedTimeout() {
        return base.queuedTimeout();
    }

    @Override
    public Optional<String> url() {
        return url;
    }

    @Override
    public Optional<String> model() {
        return Optional.of("test-model");
    }

    @Override
    public Optional<String> apiKey() {
        return apiKey;
    }

    @Override
    public Optional<Integer> maxTokens() {
        return base.maxTokens();
    }

    @Override
    public Optional<Double> temperature() {
        return Optional.of(0.2);
    }

    @Override
    public String systemPrompt() {
        return "You are a test.";
    }

    @Override
    public Duration deltaInterval() {
        return base.deltaInterval();
    }

    @Override
    public int deltaChars() {
        return base.deltaChars();
    }

    @Override
    public int maxResponseChars() {
        return maxResponseChars == null ? base.maxResponseChars() : maxResponseChars;
    }

    @Override
    public Duration idleTimeout() {
        return idleTimeout;
    }

    @Override
    public Duration connectTimeout() {
        return Duration.ofSeconds(2);
    }

    @Override
    public Duration openTimeout() {
        return Duration.ofSeconds(2);
    }

    @Override
    public int maxConnections() {
        return 8;
    }

    @Override
    public Retry retry() {
        return new RetrySettings(maxRetries, retryDelay, maxDelay);
    }

    @Override
    public Budget budget() {
        return base.budget();
    }

    @Override
    public Duration unavailableTimeout() {
        return base.unavailableTimeout();
    }

    @Override
    public FleetCircuit fleetCircuit() {
        return base.fleetCircuit();
    }

    @Override
    public Price price() {
        return base.price();
    }

    /** Named records, not anonymous classes: CDI refuses the constraint annotations inherited by the latter. */
    record RetrySettings(int maxRetries, Duration delay, Duration maxDelay) implements Retry {
    }
}

package dev.fencedqueue.llm;

import java.time.Duration;
import java.util.Optional;

import dev.fencedqueue.llm.LlmConfig;

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
        this.idleTimeout = base.stream().idleTimeout();
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
    public Request request() {
        return new RequestSettings(base.request().maxTokens(), Optional.of(0.2), "You are a test.",
                base.request().tools(), base.request().reasoningSummary());
    }

    @Override
    public Stream stream() {
        Stream stream = base.stream();
        return new StreamSettings(stream.deltaInterval(), stream.deltaChars(),
                maxResponseChars == null ? stream.maxChars() : maxResponseChars, idleTimeout);
    }

    @Override
    public Http http() {
        return new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(2), 8);
    }

    @Override
    public Retry retry() {
        return new RetrySettings(maxRetries, retryDelay, maxDelay);
    }

    @Override
    public Resume resume() {
        return base.resume();
    }

    @Override
    public Outage outage() {
        return base.outage();
    }

    @Override
    public Budget budget() {
        return base.budget();
    }

    @Override
    public Price price() {
        return base.price();
    }

    /** Named records, not anonymous classes: CDI refuses the constraint annotations inherited by the latter. */
    record RetrySettings(int maxRetries, Duration delay, Duration maxDelay) implements Retry {
    }

    record RequestSettings(Optional<Integer> maxTokens, Optional<Double> temperature, String systemPrompt,
            Optional<java.util.List<String>> tools, Optional<String> reasoningSummary) implements Request {
    }

    record StreamSettings(Duration deltaInterval, int deltaChars, int maxChars, Duration idleTimeout)
            implements Stream {
    }

    record HttpSettings(Duration connectTimeout, Duration openTimeout, int maxConnections) implements Http {
    }
}

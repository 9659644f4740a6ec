package dev.fencedqueue.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiFunction;

import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/**
 * Cross-field checks of the configuration, run at startup so that a bad combination fails fast: first of all
 * startup observers ({@code @Priority(1)}), before any worker takes a job or any queue setting is applied.
 */
@ApplicationScoped
public class ConfigChecks {

    private static final Logger LOG = Logger.getLogger(ConfigChecks.class);

    void check(@Observes @Priority(1) StartupEvent event, WorkerConfig worker, LlmConfig llm,
            SimulatorConfig simulator, ResearchConfig research, RedisKeysConfig redis, TracingConfig tracing,
            TenancyConfig tenancy) {
        WorkerConfig.check(worker.lock());
        tracing.uiUrl().filter(url -> !url.contains(TracingConfig.TRACE_ID)).ifPresent(url -> {
            throw new IllegalStateException("`fq.tracing.ui-url` must hold " + TracingConfig.TRACE_ID
                    + " where the trace id goes, was " + url);
        });
        // Redis's WAIT and WAITAOF take 0 as "block forever": a durability wait must end.
        requirePositive("fq.redis.wait.timeout", redis.waitFor().timeout());
        check(llm, simulator, worker.enabled());
        checkOwnerTokens(research.requireOwner(), ConfigProvider.getConfig()::getOptionalValue);
        checkVerifiableTokens("`fq.tenancy.source=principal`", tenancy.source() == TenancyConfig.Source.PRINCIPAL,
                ConfigProvider.getConfig()::getOptionalValue);
    }

    /**
     * Checks that job ownership can verify tokens: a public key and an issuer for SmallRye JWT.
     *
     * @param requireOwner {@code fq.research.require-owner}
     * @param config reads an optional setting by name
     * @throws IllegalStateException when ownership is required and {@code mp.jwt.verify.publickey} (or its
     *         {@code .location}) or {@code mp.jwt.verify.issuer} is missing
     */
    public static void checkOwnerTokens(boolean requireOwner,
            BiFunction<String, Class<String>, Optional<String>> config) {
        checkVerifiableTokens("`fq.research.require-owner`", requireOwner, config);
    }

    /**
     * Checks that bearer tokens can be verified, for a setting that reads them: a public key and an issuer for SmallRye
     * JWT.
     *
     * @param setting the setting that needs them, for the message (e.g. {@code `fq.tenancy.source=principal`})
     * @param needed whether that setting is on
     * @param config reads an optional setting by name
     * @throws IllegalStateException when {@code needed} and {@code mp.jwt.verify.publickey} (or its {@code .location})
     *         or {@code mp.jwt.verify.issuer} is missing
     */
    public static void checkVerifiableTokens(String setting, boolean needed,
            BiFunction<String, Class<String>, Optional<String>> config) {
        if (!needed) {
            return;
        }
        boolean key = config.apply("mp.jwt.verify.publickey", String.class).isPresent()
                || config.apply("mp.jwt.verify.publickey.location", String.class).isPresent();
        if (!key || config.apply("mp.jwt.verify.issuer", String.class).isEmpty()) {
            throw new IllegalStateException(setting + " needs bearer tokens to be verifiable: set "
                    + "`mp.jwt.verify.publickey` (or `mp.jwt.verify.publickey.location`) and `mp.jwt.verify.issuer`");
        }
    }

    /**
     * Checks that an OpenAI-compatible server has a model, and that the built-in simulator, when it is the LLM,
     * speaks often enough for the idle timeout.
     *
     * @param llm the LLM settings
     * @param simulator the simulator settings
     * @param workersEnabled whether this instance runs workers ({@code fq.worker.enabled}), research jobs among them
     * @throws IllegalStateException when this instance runs workers and has no LLM at all: {@code fq.llm.url} is empty
     *         and the simulator is off ({@code fq.simulator.enabled}); when {@code fq.llm.protocol=openai} has a
     *         {@code fq.llm.url} but no {@code fq.llm.model}; or {@code fq.llm.url} is empty and the simulator's pace
     *         ({@code fq.simulator.step-interval}, or {@code token-interval} for {@code openai}) is not shorter
     *         than {@code fq.llm.idle-timeout}; or one price is set without the other ({@link #check(LlmConfig.Price)})
     */
    public static void check(LlmConfig llm, SimulatorConfig simulator, boolean workersEnabled) {
        boolean simulated = llm.url().filter(url -> !url.isBlank()).isEmpty();
        if (simulated && !simulator.enabled()) {
            if (workersEnabled) {
                // A pod that would accept research jobs and never run them must not become ready.
                throw new IllegalStateException("no LLM for research jobs: `fq.llm.url` is empty and the built-in "
                        + "simulator is off (`fq.simulator.enabled`); set `fq.llm.url` to an LLM server (or "
                        + "`fq.simulator.enabled=true`), or turn this instance's workers off (`fq.worker.enabled=false`)");
            }
            LOG.info("no LLM server (`fq.llm.url` is empty, `fq.simulator.enabled` is off): this instance runs no "
                    + "workers, so it only accepts and serves research jobs");
        }
        boolean openai = llm.protocol() != LlmConfig.Protocol.RESEARCH;
        if (openai && !simulated && llm.model().filter(model -> !model.isBlank()).isEmpty()) {
            throw new IllegalStateException("`fq.llm.model` must be set when `fq.llm.protocol` is " + llm.protocol()
                    .name().toLowerCase(Locale.ROOT) + " and "
                    + "`fq.llm.url` names a server (" + llm.url().get() + ")");
        }
        String paceName = openai ? "fq.simulator.token-interval" : "fq.simulator.step-interval";
        Duration pace = openai ? simulator.tokenInterval() : simulator.stepInterval();
        if (simulated && pace.compareTo(llm.idleTimeout()) >= 0) {
            throw new IllegalStateException("`" + paceName + "` (" + pace + ") must be shorter than "
                    + "`fq.llm.idle-timeout` (" + llm.idleTimeout() + "), or every simulated research job fails as silent");
        }
        requirePositive("fq.llm.delta-interval", llm.deltaInterval());
        requirePositive("fq.llm.open-timeout", llm.openTimeout());
        requirePositive("fq.llm.idle-timeout", llm.idleTimeout());
        if (llm.budget().lease().compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalStateException("`fq.llm.budget.lease` must be at least 1s (a call renews it every third "
                    + "of it, a round trip to Redis each), was " + llm.budget().lease());
        }
        check(llm.price());
    }

    /**
     * Checks that the model's prices are set together: a cost with one of them left out would be counted low.
     *
     * @param price {@code fq.llm.price.*}, must not be {@code null}
     * @throws IllegalStateException when one of {@code fq.llm.price.input} and {@code fq.llm.price.output} is set and
     *         the other is not
     */
    public static void check(LlmConfig.Price price) {
        if (price.input().isPresent() != price.output().isPresent()) {
            throw new IllegalStateException("`fq.llm.price.input` and `fq.llm.price.output` must be set together (both "
                    + "for costs, neither for none), was input " + price.input().map(Object::toString).orElse("(none)")
                    + " and output " + price.output().map(Object::toString).orElse("(none)"));
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalStateException("`" + name + "` must be positive, was " + value);
        }
    }
}

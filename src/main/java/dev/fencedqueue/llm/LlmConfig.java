package dev.fencedqueue.llm;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * The LLM server research jobs call ({@code fq.llm.*}): where it is, what it speaks and the model to ask (what a
 * deployment sets), then one group per concern: the request ({@code request.*}), reading its stream
 * ({@code stream.*}), the HTTP client ({@code http.*}), retries ({@code retry.*}), takeovers ({@code resume.*}), the
 * fleet's wait through an outage ({@code outage.*}), the fleet's budget ({@code budget.*}) and the model's prices
 * ({@code price.*}). Single options are checked by their constraints; {@link #check(LlmConfig)} checks what spans
 * several.
 */
@ConfigMapping(prefix = "fq.llm")
public interface LlmConfig {

    /**
     * What the LLM server speaks: {@code openai} (the default: OpenAI-compatible streaming chat completions, as served
     * by vLLM, Ollama, llama.cpp's server and hosted APIs), {@code responses} (OpenAI's Responses API in background
     * mode, as OpenAI and vLLM serve it) or {@code research} (fenced-queue's own research protocol:
     * {@code POST {query, jobId}}, answered with SSE progress lines and a summary, for a research server written to
     * it).
     */
    @WithDefault("openai")
    Protocol protocol();

    /**
     * Where the LLM server is. For {@code research} the URL of the research endpoint; for {@code openai} the
     * base URL, to which {@code /v1/chat/completions} is appended (e.g. {@code http://vllm:8000},
     * {@code http://localhost:11434} for Ollama, {@code https://api.openai.com}). Empty means the built-in
     * simulator of this instance, reached over HTTP ({@code /simulator/research} or
     * {@code /simulator/v1/chat/completions}).
     */
    Optional<String> url();

    /** {@code openai}: the model to ask ({@code model} of the request); required with a {@code url}. */
    Optional<String> model();

    /**
     * {@code openai}: the API key, sent as {@code Authorization: Bearer <key>}; never logged, never in a job's
     * status or events. Empty sends no {@code Authorization} header (vLLM, Ollama and llama.cpp need none by
     * default).
     */
    Optional<String> apiKey();

    /** What each request asks of the model ({@code fq.llm.request.*}). */
    Request request();

    /** How a streamed answer is read ({@code fq.llm.stream.*}). */
    Stream stream();

    /** The HTTP client's connections to the LLM server ({@code fq.llm.http.*}). */
    Http http();

    /** Retries of opening the stream, before any byte of an answer arrived ({@code fq.llm.retry.*}). */
    Retry retry();

    /**
     * What a run that takes a research job over does with the answer earlier runs committed ({@code fq.llm.resume.*}).
     */
    Resume resume();

    /** How the fleet waits through an LLM server that refuses or fails every call ({@code fq.llm.outage.*}). */
    Outage outage();

    /** The LLM budget the fleet shares per endpoint and model ({@code fq.llm.budget.*}), kept in Redis. */
    Budget budget();

    /** What the model's tokens cost ({@code fq.llm.price.*}): none unless set. */
    Price price();

    /** The ways {@link Resume#mode()} names. */
    enum ResumeMode {
        /** Continue, in the way the model supports (probed once per model). */
        AUTO,
        /** Continue with a trailing assistant message, without probing. */
        CONTINUE,
        /** Start over. */
        RESTART
    }

    /** The protocols {@link #protocol()} names. */
    enum Protocol {
        /** fenced-queue's research protocol. */
        RESEARCH,
        /** OpenAI-compatible streaming chat completions. */
        OPENAI,
        /** OpenAI's Responses API in background mode ({@code /v1/responses}), which a takeover re-attaches to. */
        RESPONSES
    }

    /** What each request asks of the model ({@code fq.llm.request.*}). */
    interface Request {

        /** {@code openai}: most tokens of one answer ({@code max_tokens}); empty leaves it to the server. */
        Optional<@Min(1) Integer> maxTokens();

        /** {@code openai}: sampling temperature, 0 to 2; empty leaves it to the server. */
        Optional<@DecimalMin("0") @DecimalMax("2") Double> temperature();

        /** {@code openai}: the system message sent before the job's query. */
        @WithDefault("You are a research assistant. Research the user's question thoroughly and answer with a "
                + "well-structured report in Markdown: a short summary first, then the findings with their sources.")
        String systemPrompt();

        /**
         * {@code responses}: the types of the built-in tools to enable ({@code tools: [{"type": ...}]}), e.g.
         * {@code web_search_preview}; OpenAI's deep-research models need at least one data source. Empty enables none.
         */
        Optional<List<String>> tools();

        /**
         * {@code responses}: the reasoning summary to ask of a reasoning model ({@code reasoning: {"summary": ...}}:
         * {@code auto}, {@code concise} or {@code detailed}); its deltas become {@code reasoningDelta}. Empty asks for
         * none (a model without reasoning refuses the field).
         */
        Optional<String> reasoningSummary();
    }

    /** How a streamed answer is read ({@code fq.llm.stream.*}). */
    interface Stream {

        /**
         * {@code openai}: streamed text is written as a {@code progress} event once this much time passed since the
         * last one (checked as text arrives; what is left is written at the end). Each event costs Redis about 40 bytes
         * besides its text: at 500 ms, a model writing 50 tokens a second fills each with about 100 characters, so that
         * the answer costs Redis under 2 bytes a character while it streams (docs/operations.md, "Redis memory").
         */
        @WithDefault("500ms")
        @DurationMin(inclusive = false, message = "must be positive")
        Duration deltaInterval();

        /** {@code openai}: ... or once this many characters of text are waiting, whichever comes first. */
        @WithDefault("400")
        @Min(1)
        int deltaChars();

        /**
         * Most characters of one answer kept (text and reasoning together): past it the upstream stream is closed
         * and the job completes with what it has, marked {@code truncated}, so a runaway stream cannot fill Redis.
         * For {@code research}, a summary longer than this fails the attempt.
         */
        @WithDefault("1000000")
        @Min(1)
        int maxChars();

        /**
         * Longest silence (not a byte, comments included) tolerated from the LLM before the attempt fails; it
         * must exceed the longest gap between two of the LLM's messages.
         */
        @WithDefault("120s")
        @DurationMin(inclusive = false, message = "must be positive")
        Duration idleTimeout();
    }

    /** The HTTP client's connections to the LLM server ({@code fq.llm.http.*}). */
    interface Http {

        /** Timeout to open the TCP connection to the LLM server. */
        @WithDefault("5s")
        Duration connectTimeout();

        /**
         * Longest wait for the response headers of one try (the server may queue the request before it answers);
         * a try that takes longer is cancelled and retried like a refused connection.
         */
        @WithDefault("60s")
        @DurationMin(inclusive = false, message = "must be positive")
        Duration openTimeout();

        /** Most connections open to the LLM server at the same time (one per running research job). */
        @WithDefault("256")
        @Min(1)
        int maxConnections();
    }

    /**
     * {@code fq.llm.retry.*}: a refused or reset connection, a try that timed out, and a {@code 429} or {@code 5xx}
     * answer are retried with exponential backoff ({@code delay}, doubled each time up to {@code max-delay}); a
     * {@code Retry-After} header (seconds or an HTTP date) replaces the computed delay, capped at
     * {@code max-delay}. Other answers fail the attempt at once.
     */
    interface Retry {

        /** Retries after the first try. */
        @WithDefault("3")
        @Min(0)
        int maxRetries();

        /** Delay before the first retry. */
        @WithDefault("500ms")
        Duration delay();

        /** Longest delay between two tries, {@code Retry-After} included. */
        @WithDefault("30s")
        Duration maxDelay();
    }

    /**
     * What a run that takes a research job over does with the answer earlier runs committed ({@code fq.llm.resume.*}).
     */
    interface Resume {

        /**
         * What a run that takes a research job over does with the answer earlier runs committed: {@code auto} continues
         * it in the best way the server supports (asks once per model whether it continues a trailing assistant
         * message), {@code continue} continues it with a trailing assistant message without asking, {@code restart}
         * starts the answer over (readers get {@code reset}). Continuing falls back to asking the model, in a user
         * message, to go on from where the answer stops, and only then to starting over. See docs/guide.md, "Takeovers
         * that continue the answer".
         */
        @WithDefault("auto")
        ResumeMode mode();

        /**
         * {@code responses}: time between two retrievals of a response that can no longer be streamed again (OpenAI
         * refuses to re-stream one more than about 5 minutes old), polled until it ends.
         */
        @WithDefault("2s")
        Duration pollInterval();

        /**
         * {@code responses}: how long a response a takeover comes back for may stay {@code queued} before the run gives
         * up on it and continues the answer in a new one.
         */
        @WithDefault("5m")
        Duration queuedTimeout();
    }

    /**
     * How the fleet waits through an LLM server that refuses or fails every call ({@code fq.llm.outage.*}): the circuit
     * the fleet shares per endpoint and model, kept in Redis beside the budget: a call that found the server down
     * (after its own retries, {@link LlmConfig#retry()}) opens it, so that every instance's calls wait instead of
     * failing; one call probes the server after {@link #probeDelay()}, each failed probe doubles the interval up to
     * {@link #probeMaxDelay()}, and the first success closes it.
     */
    interface Outage {

        /**
         * How long the fleet waits for an LLM server that refuses (a {@code 429}, a {@code 503} with a time to wait) or
         * fails (refused or reset connections, no headers in time, {@code 5xx}) every call, counted from the first such
         * call since its last success: until then a job whose call met it waits in the queue without counting an
         * attempt; after it, attempts fail as their calls do. {@code 0s}: attempts fail at once.
         */
        @WithDefault("15m")
        Duration timeout();

        /** The first interval between probes. */
        @WithDefault("5s")
        Duration probeDelay();

        /** The longest interval between probes. */
        @WithDefault("1m")
        Duration probeMaxDelay();
    }

    /**
     * An LLM budget the whole fleet shares, per endpoint and model, as providers limit an organisation: every streamed
     * call reserves its share in Redis before it starts ({@code dev.fencedqueue.budget.LlmBudget}), a call the budget
     * cannot admit yet hands its job back to wait without its worker slot, and the provider's rate-limit headers
     * bring the budget down to the provider's own. Empty limits: the provider's headers are the only limits; a
     * {@code 429} or {@code 503} with a time to wait still pauses the whole fleet's calls, and the fleet's circuit
     * still opens ({@link Outage}).
     */
    interface Budget {

        /** Requests per minute, the fleet's; empty for no limit. */
        OptionalInt requestsPerMinute();

        /** Tokens per minute (prompt and answer), the fleet's; empty for no limit. */
        OptionalInt tokensPerMinute();

        /**
         * Calls at once, the fleet's: a self-hosted server's slots (vLLM's, llama.cpp's, Ollama's); empty for no limit.
         */
        OptionalInt maxConcurrent();

        /**
         * How long a call holds its place among the calls at once without a renewal: its instance renews it every
         * third of this while the call streams, so a call of any length keeps its place, and an instance that died
         * lets its places go within this.
         */
        @WithDefault("1m")
        @DurationMin(seconds = 1,
                message = "must be at least 1s (a call renews it every third of it, a round trip to Redis each)")
        Duration lease();

        /**
         * The tokens a call is expected to answer when {@code fq.llm.request.max-tokens} does not say, reserved with
         * its prompt's.
         */
        @WithDefault("1000")
        @Min(1)
        int answerTokens();
    }

    /**
     * {@code fq.llm.price.*}: the prices of the model research jobs ask, per million tokens in a currency of your
     * choice (e.g. USD), as providers list them. Prices are keyed by model in effect: every LLM call of this service
     * asks the one model {@code fq.llm.model} (the simulator's when it is empty), so these two prices are that model's,
     * and an instance configured with another model gets its own prices with it. With both set, each attempt's cost
     * (its prompt tokens at {@code input}, its completion tokens at {@code output}) is counted where its tokens are:
     * the job's status ({@code cost}), its tenant's view, {@code fq_llm_cost_total} and the LLM call's span. Both empty
     * (the default): no cost is counted nor shown. One set without the other fails startup.
     */
    interface Price {

        /** Price of a million prompt (input) tokens, in currency units, at least 0; empty for none. */
        Optional<@DecimalMin("0") BigDecimal> input();

        /** Price of a million completion (output) tokens, in currency units, at least 0; empty for none. */
        Optional<@DecimalMin("0") BigDecimal> output();

        /**
         * Checks that the model's prices are set together: a cost with one of them left out would be counted low.
         *
         * @param price {@code fq.llm.price.*}, must not be {@code null}
         * @throws IllegalStateException when one of {@code input} and {@code output} is set and the other is not
         */
        static void check(Price price) {
            if (price.input().isPresent() != price.output().isPresent()) {
                throw new IllegalStateException("`fq.llm.price.input` and `fq.llm.price.output` must be set together "
                        + "(both for costs, neither for none), was input "
                        + price.input().map(Object::toString).orElse("(none)") + " and output "
                        + price.output().map(Object::toString).orElse("(none)"));
            }
        }
    }

    /**
     * Checks what no single option's constraint can: a server without a model, and a price without the other.
     *
     * @param llm the LLM settings, must not be {@code null}
     * @throws IllegalStateException when {@code fq.llm.protocol} is {@code openai} or {@code responses} and
     *         {@code fq.llm.url} names a server but {@code fq.llm.model} is empty; or when one of
     *         {@code fq.llm.price.input} and {@code fq.llm.price.output} is set and the other is not
     */
    static void check(LlmConfig llm) {
        boolean server = llm.url().filter(url -> !url.isBlank()).isPresent();
        if (llm.protocol() != Protocol.RESEARCH && server && llm.model().filter(model -> !model.isBlank()).isEmpty()) {
            throw new IllegalStateException("`fq.llm.model` must be set when `fq.llm.protocol` is "
                    + llm.protocol().name().toLowerCase(Locale.ROOT) + " and `fq.llm.url` names a server ("
                    + llm.url().get() + ")");
        }
        Price.check(llm.price());
    }
}

package dev.fencedqueue.config;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

/**
 * The built-in LLM simulator ({@code fq.simulator.*}): the research protocol ({@code /simulator/research}),
 * OpenAI-compatible streaming chat completions ({@code /simulator/v1/chat/completions}) and OpenAI's Responses API
 * ({@code /simulator/v1/responses}).
 */
@ConfigMapping(prefix = "fq.simulator")
public interface SimulatorConfig {

    /**
     * Whether the simulator's endpoints answer: on in dev mode and tests, off by default in the packaged application
     * (its paths then answer 404), so that a production instance offers no fake LLM to the world. With it off, an
     * empty {@code fq.llm.url} leaves research jobs without an LLM: they fail, saying so.
     */
    @WithDefault("false")
    boolean enabled();

    /** The research protocol's endpoint ({@code fq.simulator.research.*}). */
    Research research();

    /** The answers of the OpenAI endpoints, chat completions and Responses ({@code fq.simulator.answer.*}). */
    Answer answer();

    /** How the simulated model continues an answer a takeover sends back ({@code fq.simulator.continuation.*}). */
    Continuation continuation();

    /** The Responses API's endpoint ({@code fq.simulator.responses.*}). */
    Responses responses();

    /** The OpenAI endpoints as a provider at its limits and in its bad minutes ({@code fq.simulator.provider.*}). */
    Provider provider();

    /** The research protocol's endpoint ({@code fq.simulator.research.*}). */
    interface Research {

        /** Progress events per research stream, before the final summary. */
        @WithDefault("10")
        @Min(1)
        int steps();

        /**
         * Time between two progress events; 60s makes a stream last about ten minutes, like the research jobs the
         * service is built for.
         */
        @WithDefault("3s")
        Duration stepInterval();
    }

    /** The answers of the OpenAI endpoints ({@code fq.simulator.answer.*}). */
    interface Answer {

        /**
         * OpenAI endpoints: words of a simulated answer, which ends at the end of a sentence (finish reason
         * {@code stop}); a request's lower {@code max_tokens} ({@code max_output_tokens}) cuts it where it stands
         * (finish reason {@code length}, or {@code incomplete}).
         */
        @WithDefault("200")
        @Min(1)
        int words();

        /** Time between two streamed words (one chunk each). */
        @WithDefault("50ms")
        Duration tokenInterval();
    }

    /** How the simulated model continues an answer ({@code fq.simulator.continuation.*}). */
    interface Continuation {

        /**
         * OpenAI endpoint: what the simulated model does with a trailing assistant message: {@code continue} it (as
         * vLLM with {@code continue_final_message}, llama.cpp's server and Ollama do), answer as a {@code new-turn} (as
         * a chat template that adds a generation prompt does), or {@code refuse} it with {@code 400} (as Anthropic's
         * Claude 4.6 and later do); {@code refuse-all} also refuses an assistant message followed by a user message, so
         * that no continuation works.
         */
        @WithDefault("continue")
        TrailingAssistant trailingAssistant();

        /**
         * OpenAI endpoint: words of the answer so far that a continuation asked for by instruction repeats before it
         * goes on (models often do), so that seam cleaning is tested; 0 repeats none.
         */
        @WithDefault("0")
        @Min(0)
        int repeatWords();
    }

    /** The Responses API's endpoint ({@code fq.simulator.responses.*}). */
    interface Responses {

        /**
         * Responses API: how the simulated server serves {@code /v1/responses}: as {@code openai} does (background
         * responses, events numbered by {@code sequence_number}, retrieval, re-streaming and cancellation), or as
         * {@code llama-cpp}'s server does (release b10587: {@code background} and {@code store} ignored, events without
         * {@code sequence_number}, the response stopped when its stream closes, {@code 404} to retrieving or cancelling
         * it, {@code response.completed} even when {@code max_output_tokens} cut it). A question that holds
         * {@code [sim:llama-cpp]} is answered as {@code llama-cpp} whatever this says.
         */
        @WithDefault("openai")
        ResponsesStyle style();

        /**
         * Responses API: how long after its creation a background response can still be streamed again
         * ({@code GET /v1/responses/{id}?stream=true}); past it the simulator answers {@code 400}, as OpenAI does for a
         * response "more than 5 minutes old".
         */
        @WithDefault("5m")
        Duration restreamWindow();
    }

    /** The OpenAI endpoints as a provider at its limits and in its bad minutes ({@code fq.simulator.provider.*}). */
    interface Provider {

        /**
         * The OpenAI endpoints' request limit, as a provider's: requests per minute, a bucket that refills evenly over
         * the minute; past it, {@code 429} with {@code retry-after} and OpenAI's {@code x-ratelimit-*} headers. Empty:
         * no limit.
         */
        OptionalInt requestsPerMinute();

        /**
         * The OpenAI endpoints' token limit: tokens per minute, counted when a request is admitted as its prompt's
         * tokens plus its {@code max_tokens} ({@code max_output_tokens}), or plus the answer's length without one.
         * Empty: no limit.
         */
        OptionalInt tokensPerMinute();

        /**
         * An outage from startup: for this long the OpenAI endpoints fail as {@link #outageKind()} says, as a
         * provider's bad minutes do ({@code PUT /simulator/outage} starts one at run time). Empty: none.
         */
        Optional<Duration> outage();

        /** How the OpenAI endpoints fail during an outage. */
        @WithDefault("unavailable")
        OutageKind outageKind();
    }

    /** The failures {@link Provider#outageKind()} names. */
    enum OutageKind {
        /** {@code 503} with an OpenAI error object and no {@code retry-after}, as an overloaded provider answers. */
        UNAVAILABLE,
        /** {@code 500} with an OpenAI error object. */
        ERROR,
        /** The connection is closed without a response, as a provider that is down does. */
        RESET
    }

    /** The styles {@link Responses#style()} names. */
    enum ResponsesStyle {
        /** As OpenAI's Responses API in background mode. */
        OPENAI,
        /** As llama.cpp's server: no sequence numbers, no retrieval. */
        LLAMA_CPP
    }

    /** The behaviours {@link Continuation#trailingAssistant()} names. */
    enum TrailingAssistant {
        /** Continue the message. */
        CONTINUE,
        /** Ignore it: answer from the start. */
        NEW_TURN,
        /** Answer {@code 400}. */
        REFUSE,
        /** Answer {@code 400} to any conversation with an assistant message after the question. */
        REFUSE_ALL
    }
}

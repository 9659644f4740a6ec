package dev.fencedqueue.config;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/** The deep-research job type ({@code fq.research.*}). */
@ConfigMapping(prefix = "fq.research")
public interface ResearchConfig {

    /** Name of the queue research jobs run on; its Redis keys share the hash tag {@code {name}}. */
    @WithDefault("deep-research")
    String queue();

    /** How long an {@code Idempotency-Key} keeps returning the same job; it outlives the job's removal. */
    @WithDefault("24h")
    Duration idempotencyTtl();

    /** Fleet-wide cap of research jobs running at the same time (set on the queue at startup); empty for none. */
    Optional<@Min(1) Integer> globalConcurrency();

    /** A research job's attempts ({@code fq.research.attempts.*}). */
    Attempts attempts();

    /**
     * What is kept of completed research jobs ({@code fq.research.remove-on-complete.*}, BullMQ's
     * {@code removeOnComplete}).
     */
    RemoveOnComplete removeOnComplete();

    /**
     * What is kept of failed or aborted research jobs ({@code fq.research.remove-on-fail.*}, BullMQ's
     * {@code removeOnFail}).
     */
    RemoveOnFail removeOnFail();

    /** The fleet-wide rate limit of research jobs ({@code fq.research.rate-limit.*}): for LLM rate limits. */
    RateLimit rateLimit();

    /** The per-client limit of {@code POST /research/start} ({@code fq.research.start-rate-limit.*}). */
    StartRateLimit startRateLimit();

    /**
     * Whether a research job belongs to the caller who started it: {@code POST /research/start} then needs a bearer
     * JWT (verified by SmallRye JWT: {@code mp.jwt.verify.publickey} or {@code mp.jwt.verify.publickey.location}, and
     * {@code mp.jwt.verify.issuer}), the job records the token's principal ({@code upn}, {@code preferred_username},
     * else {@code sub}) as its owner, and reading or aborting it needs a token of that principal: 401 without one,
     * 403 for another. Off by default (anyone who knows a job id may read and abort it).
     */
    @WithDefault("false")
    boolean requireOwner();

    /** Deep research, the flow a {@code POST /research/start} with {@code "mode": "deep"} starts. */
    Deep deep();

    /**
     * Deep research ({@code fq.research.deep.*}): the parent job asks the LLM for {@link #subQuestions()}
     * sub-questions ({@link #planPrompt()}), adds one child research job per sub-question (a flow), waits for them,
     * then asks the LLM for the report ({@link #reportPrompt()}) from the children's answers.
     */
    interface Deep {

        /** Most sub-questions of a plan, 1 to {@value #MAX_SUB_QUESTIONS}: lines of the plan past it are dropped. */
        @WithDefault("3")
        @Min(1)
        @Max(MAX_SUB_QUESTIONS)
        int subQuestions();

        /**
         * The prompt that asks for the plan; {@code {n}} is replaced by {@link #subQuestions()} and {@code {query}} by
         * the job's question. The answer's non-blank lines (list markers stripped) are the sub-questions.
         */
        @WithDefault("Plan the research of the question below. Answer with at most {n} sub-questions that together "
                + "cover it, one per line, and nothing else.\n\nQuestion: {query}")
        String planPrompt();

        /**
         * The prompt that asks for the report; {@code {query}} is replaced by the job's question and {@code {findings}}
         * by the children's answers, each under its sub-question.
         */
        @WithDefault("Write the research report that answers the question below from the findings of its "
                + "sub-questions.\n\nQuestion: {query}\n\nFindings:\n{findings}")
        String reportPrompt();

        /** Longest part of one child's answer put in the report prompt, in characters (the rest is cut). */
        @WithDefault("4000")
        @Min(100)
        int findingChars();

        /** Upper bound of {@link #subQuestions()}. */
        int MAX_SUB_QUESTIONS = 8;
    }

    /** A research job's attempts ({@code fq.research.attempts.*}). */
    interface Attempts {

        /** Attempts per research job (the first run included); each retry is a new epoch. */
        @WithDefault("3")
        @Min(1)
        int max();

        /** Base delay of the exponential backoff between attempts. */
        @WithDefault("5s")
        Duration backoffDelay();

        /** Longest one attempt may run before it is cancelled (its LLM call closed) and counted as failed. */
        @WithDefault("30m")
        Duration timeout();
    }

    /** What is kept of completed research jobs ({@code fq.research.remove-on-complete.*}). */
    interface RemoveOnComplete {

        /** How long a job (and its event stream) is kept; the stream must outlive its readers. */
        @WithDefault("24h")
        Duration age();

        /** Most jobs kept (the oldest go first). */
        @WithDefault("10000")
        @Min(1)
        int count();
    }

    /** What is kept of failed or aborted research jobs ({@code fq.research.remove-on-fail.*}). */
    interface RemoveOnFail {

        /** How long a job (and its event stream) is kept. */
        @WithDefault("7d")
        Duration age();

        /** Most jobs kept (the oldest go first). */
        @WithDefault("10000")
        @Min(1)
        int count();
    }

    /** The fleet-wide rate limit of research jobs ({@code fq.research.rate-limit.*}). */
    interface RateLimit {

        /**
         * Fleet-wide rate limit: research jobs started per {@link #duration()}; empty for none (for LLM rate limits).
         */
        Optional<@Min(1) Integer> max();

        /** The window of {@link #max()}. */
        @WithDefault("1m")
        Duration duration();
    }

    /** The per-client limit of {@code POST /research/start} ({@code fq.research.start-rate-limit.*}). */
    interface StartRateLimit {

        /**
         * Per client address: {@code POST /research/start} requests admitted per {@link #window()} (a fixed
         * window counted in Redis, so for the whole fleet); past it the answer is 429 with {@code Retry-After}. Empty
         * for none, the default. Behind a proxy, let Quarkus take the client's address from {@code X-Forwarded-For}
         * ({@code quarkus.http.proxy.proxy-address-forwarding}), or every client shares the proxy's.
         */
        Optional<@Min(1) Integer> max();

        /** The window of {@link #max()}. */
        @WithDefault("1m")
        Duration window();
    }
}

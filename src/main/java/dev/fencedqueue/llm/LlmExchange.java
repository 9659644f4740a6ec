package dev.fencedqueue.llm;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientResponse;

/**
 * An open streaming call to the LLM server: its response, paused until it is read, and the Vert.x context that
 * delivers it.
 *
 * @param response the response, paused
 * @param context the context the response's events run on: attach handlers there ({@link #onContext}), so that no
 *        chunk or end of a short response can slip between a pause and a handler (the opening may hand the exchange
 *        over on another thread: a fault-tolerance guard does)
 * @param idleTimeout the longest silence the connection allows ({@code fq.llm.stream.idle-timeout}); past it the connection is
 *        closed, and the response fails
 * @param brokenBeforeRead how the response broke while it waited paused for its reader (the connection closed), else
 *        {@code null}: Vert.x delivers that failure once, to the exception handler the opening set, not again to the
 *        reader's
 * @param usage the tokens the call used, prompt and answer, as the server reported them at its end (the reader sets it:
 *        {@link #reportTokens}); -1 until then, and for a server that reports none. The fleet's LLM budget settles the
 *        call with it ({@code LlmBudgetGate})
 * @param answerUsage the answer's part of {@code usage} (completion or output tokens); -1 until reported
 */
public record LlmExchange(HttpClientResponse response, Context context, Duration idleTimeout,
        AtomicReference<Throwable> brokenBeforeRead, AtomicLong usage, AtomicLong answerUsage) {

    /**
     * An exchange whose response is paused: from now its failure is kept for the reader ({@link #brokenBeforeRead}).
     *
     * @param response the response, paused
     * @param context the context the response's events run on
     * @param idleTimeout the connection's idle timeout
     * @return the exchange
     */
    static LlmExchange of(HttpClientResponse response, Context context, Duration idleTimeout) {
        AtomicReference<Throwable> broken = new AtomicReference<>();
        response.exceptionHandler(broken::set);
        return new LlmExchange(response, context, idleTimeout, broken, new AtomicLong(-1), new AtomicLong(-1));
    }

    /** Runs {@code task} on the response's context: at once when already there. */
    public void onContext(Runnable task) {
        if (Vertx.currentContext() == context) {
            task.run();
        } else {
            context.runOnContext(ignored -> task.run());
        }
    }

    /**
     * Reports the tokens the call used, as the server reported them at its end (chat completions' {@code usage}, a
     * Responses terminal event's): negative counts as 0.
     *
     * @param prompt the prompt's (input) tokens
     * @param answer the answer's (completion, output) tokens
     */
    public void reportTokens(long prompt, long answer) {
        answerUsage.set(Math.max(0, answer));
        usage.set(Math.max(0, prompt) + Math.max(0, answer));
    }

    /** Closes the exchange before its end: for HTTP/1.x this closes the connection, which the server sees. */
    public void abort() {
        response.request().reset();
    }
}

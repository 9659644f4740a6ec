package dev.fencedqueue.research;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.fencedqueue.llm.ChatChunk;

/**
 * One attempt's answer as it streams in: the text and reasoning so far (at most {@code maxChars} together), the
 * part not yet published as a {@code progress} event, the running count of completion tokens (one per chunk
 * with text, replaced by the server's {@code usage} when it sends one), and how the answer ended. Not
 * thread-safe, except {@link #claimAccounting}: the chunks of one stream arrive one after the other.
 */
final class ChatAnswer {

    private final int maxChars;
    private final int batchChars;
    private final long batchNanos;
    private final StringBuilder text = new StringBuilder();
    private final StringBuilder reasoning = new StringBuilder();
    private final StringBuilder pendingText = new StringBuilder();
    private final StringBuilder pendingReasoning = new StringBuilder();
    private final long baseTokens;
    private long countedTokens;
    private long committedOwnTokens;
    private long lastSequence = -1;
    private final boolean usageIncludesBase;
    private ChatChunk.Usage usage;
    private String finishReason;
    private boolean capped;
    private long lastPublished;
    private final AtomicBoolean accounted = new AtomicBoolean();

    /**
     * @param maxChars most characters kept, text and reasoning together ({@code fq.llm.stream.max-chars})
     * @param batchChars publish once this many characters wait ({@code fq.llm.stream.delta-chars})
     * @param batchNanos ... or once this long passed since the last publication ({@code fq.llm.stream.delta-interval}), ns
     * @param now the current {@link System#nanoTime()}
     */
    ChatAnswer(int maxChars, int batchChars, long batchNanos, long now) {
        this(CommittedAnswer.NONE, maxChars, batchChars, batchNanos, now);
    }

    /**
     * An answer that continues what earlier runs committed: {@code base} counts as text, reasoning and tokens already
     * published.
     *
     * @param base the committed answer this run continues ({@link CommittedAnswer#NONE} when it starts the answer)
     * @param maxChars as {@link #ChatAnswer(int, int, long, long)} says, {@code base} included
     * @param batchChars as {@link #ChatAnswer(int, int, long, long)} says
     * @param batchNanos as {@link #ChatAnswer(int, int, long, long)} says
     * @param now the current {@link System#nanoTime()}
     */
    ChatAnswer(CommittedAnswer base, int maxChars, int batchChars, long batchNanos, long now) {
        this(base, false, maxChars, batchChars, batchNanos, now);
    }

    /**
     * @param base as {@link #ChatAnswer(CommittedAnswer, int, int, long, long)} says
     * @param usageIncludesBase whether the server's {@code usage} counts {@code base} too (a re-attached response: the
     *        same response generated both), so that this run's own tokens are its usage minus the base's
     * @param maxChars as {@link #ChatAnswer(int, int, long, long)} says, {@code base} included
     * @param batchChars as {@link #ChatAnswer(int, int, long, long)} says
     * @param batchNanos as {@link #ChatAnswer(int, int, long, long)} says
     * @param now the current {@link System#nanoTime()}
     */
    ChatAnswer(CommittedAnswer base, boolean usageIncludesBase, int maxChars, int batchChars, long batchNanos, long now) {
        this.usageIncludesBase = usageIncludesBase;
        this.maxChars = maxChars;
        this.batchChars = batchChars;
        this.batchNanos = batchNanos;
        this.lastPublished = now;
        this.baseTokens = base.completionTokens();
        this.text.append(base.text());
        this.reasoning.append(base.reasoning());
    }

    /**
     * Adds a chunk.
     *
     * @return {@code false} once the answer reached {@code maxChars} (the rest of this chunk was dropped): read
     *         no more
     */
    boolean add(ChatChunk chunk) {
        if (chunk.usage() != null) {
            usage = chunk.usage();
        }
        if (chunk.sequence() >= 0 && chunk.activity() == null) {
            lastSequence = chunk.sequence();
        }
        if (chunk.finishReason() != null) {
            finishReason = chunk.finishReason();
        }
        if (chunk.content() != null && !chunk.content().isEmpty() || chunk.reasoning() != null && !chunk.reasoning().isEmpty()) {
            countedTokens++;
        }
        return append(chunk.reasoning(), reasoning, pendingReasoning) && append(chunk.content(), text, pendingText);
    }

    /** @return whether text waits and {@code batchChars} or {@code batchNanos} has been reached */
    boolean due(long now) {
        int waiting = pendingText.length() + pendingReasoning.length();
        return waiting > 0 && (waiting >= batchChars || now - lastPublished >= batchNanos);
    }

    /** @return whether any text waits to be published */
    boolean pending() {
        return pendingText.length() + pendingReasoning.length() > 0;
    }

    /**
     * Takes what waits to be published.
     *
     * @param now the current {@link System#nanoTime()}
     * @return {@code [text, reasoning]} since the last call, either possibly empty
     */
    String[] drain(long now) {
        String[] batch = {pendingText.toString(), pendingReasoning.toString()};
        pendingText.setLength(0);
        pendingReasoning.setLength(0);
        lastPublished = now;
        return batch;
    }

    /**
     * @return completion tokens of the whole answer so far: those the committed base cost, and this run's (the
     *         server's count once it sent {@code usage}, else one per chunk with text)
     */
    long completionTokens() {
        return baseTokens + ownCompletionTokens();
    }

    /** @return completion tokens this run generated so far */
    long ownCompletionTokens() {
        if (usage == null) {
            return countedTokens;
        }
        return usageIncludesBase ? Math.max(0, usage.completionTokens() - baseTokens) : usage.completionTokens();
    }

    /** @return the upstream sequence number of the last chunk with text added, -1 when none had one */
    long lastSequence() {
        return lastSequence;
    }

    /** @param ownTokens this run's completion tokens at a publication that was committed (the fenced write landed) */
    void committed(long ownTokens) {
        committedOwnTokens = Math.max(committedOwnTokens, ownTokens);
    }

    /** @return completion tokens this run generated after its last committed publication: lost if it ends now */
    long uncommittedTokens() {
        return Math.max(0, ownCompletionTokens() - committedOwnTokens);
    }

    /** @return {@code true} the first time only: whoever gets it counts the attempt's tokens (thread-safe) */
    boolean claimAccounting() {
        return accounted.compareAndSet(false, true);
    }

    /**
     * @return whether the answer ended as an answer does: the server gave a finish reason, or the answer reached
     *         {@code maxChars}; a stream that ended otherwise was cut short
     */
    boolean ended() {
        return finishReason != null || capped;
    }

    /** @return why the answer ended as the server said ({@code stop}, {@code length}, ...), or {@code null} */
    String finishReason() {
        return finishReason;
    }

    /** @return the usage the server reported, or {@code null} */
    ChatChunk.Usage usage() {
        return usage;
    }

    /**
     * @param model the model asked
     * @return the job's result: {@code text}, {@code reasoning} (when any), {@code finishReason},
     *         {@code truncated} (cut by {@code length}, {@code content_filter} or {@code fq.llm.stream.max-chars}),
     *         the text and reasoning including what earlier runs committed when this run continued them,
     *         {@code usage} ({@code promptTokens}, {@code completionTokens}, {@code totalTokens}, {@code counted}:
     *         whether the server sent no usage and the completion tokens were counted from the chunks; the completion tokens
     *         are the whole answer's, earlier runs' committed part included, the prompt tokens this run's), {@code model}
     */
    Map<String, Object> result(String model) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("text", text.toString());
        if (!reasoning.isEmpty()) {
            result.put("reasoning", reasoning.toString());
        }
        result.put("finishReason", capped ? "max_response_chars" : finishReason);
        result.put("truncated", capped || "length".equals(finishReason) || "content_filter".equals(finishReason));
        Map<String, Object> tokens = new LinkedHashMap<>();
        tokens.put("promptTokens", usage == null ? null : usage.promptTokens());
        tokens.put("completionTokens", completionTokens());
        tokens.put("totalTokens", usage == null ? null : usage.totalTokens() + baseTokens);
        tokens.put("counted", usage == null);
        result.put("usage", tokens);
        result.put("model", model);
        return result;
    }

    private boolean append(String delta, StringBuilder all, StringBuilder pending) {
        if (delta == null || delta.isEmpty() || capped) {
            return !capped;
        }
        int room = maxChars - text.length() - reasoning.length();
        String kept = delta.length() <= room ? delta : delta.substring(0, Math.max(0, room));
        all.append(kept);
        pending.append(kept);
        capped = kept.length() < delta.length();
        return !capped;
    }
}

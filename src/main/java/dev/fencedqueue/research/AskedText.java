package dev.fencedqueue.research;

import dev.fencedqueue.llm.ChatChunk;

/**
 * The answer to one prompt that a job asks outside its published output ({@link AnswerProtocol#text}): a deep
 * research job's plan; as it is written ({@link AnswerProtocol#draft}), what has come of it so far.
 *
 * @param text the answer's text, never {@code null}: the whole answer when {@code whole}, else its text so far (empty
 *        in the {@code research} protocol, whose text comes whole at the end)
 * @param usage the tokens the call spent, as the server reported them in its stream's last chunk (from a server that
 *        reports none, one completion token per chunk of text, as an answer counts them); {@code null} in the
 *        {@code research} protocol, which counts no tokens, and while the answer is not whole
 * @param whole whether this is the whole answer (the last item of a draft)
 * @param activity what the server says it does (a progress line of the {@code research} protocol: "collecting
 *        documents (step 3 of 30)"), or {@code null}
 */
public record AskedText(String text, ChatChunk.Usage usage, boolean whole, String activity) {

    /**
     * The whole answer.
     *
     * @param text the answer's text, never {@code null}
     * @param usage the tokens the call spent, or {@code null}
     */
    public AskedText(String text, ChatChunk.Usage usage) {
        this(text, usage, true, null);
    }

    /**
     * @param textSoFar the answer's text so far, never {@code null}
     * @return an answer still being written
     */
    static AskedText partial(String textSoFar) {
        return new AskedText(textSoFar, null, false, null);
    }

    /**
     * @param activity what the server says it does, never {@code null}
     * @return a step of an answer whose text has not come yet
     */
    static AskedText activity(String activity) {
        return new AskedText("", null, false, activity);
    }
}

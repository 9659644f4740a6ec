package dev.fencedqueue.research;

import dev.fencedqueue.llm.ChatChunk;

/**
 * The whole answer to one prompt that a job asks outside its published output ({@link AnswerProtocol#text}): a deep
 * research job's plan.
 *
 * @param text the answer's text, never {@code null}
 * @param usage the tokens the call spent, as the server reported them in its stream's last chunk (from a server that
 *        reports none, one completion token per chunk of text, as an answer counts them); {@code null} in the
 *        {@code research} protocol, which counts no tokens
 */
public record AskedText(String text, ChatChunk.Usage usage) {
}

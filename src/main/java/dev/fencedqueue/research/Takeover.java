package dev.fencedqueue.research;

import java.util.Locale;

/**
 * How a run that took a research job over went on with the answer earlier runs committed; recorded in the job's
 * status ({@code tokens.takeovers}) and in {@code fq_llm_takeovers_total}.
 */
public enum Takeover {

    /** Re-attached to the upstream response the earlier run started (Responses API, background mode). */
    REATTACH,
    /** Asked the model to continue the committed answer (trailing assistant message, or by instruction). */
    CONTINUE,
    /** Started the answer over; readers got {@code reset}. */
    RESTART;

    /** @return the name used in the status and the metrics: {@code reattach}, {@code continue}, {@code restart} */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }
}

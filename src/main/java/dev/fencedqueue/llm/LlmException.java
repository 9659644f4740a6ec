package dev.fencedqueue.llm;

/**
 * Thrown when the research LLM call fails: the server cannot be reached, answers with a non-2xx status,
 * sends a line that is not a progress or summary message, goes silent for longer than the idle timeout,
 * or ends its stream without a summary. It fails the attempt, which is retried per the job's attempts.
 */
public class LlmException extends RuntimeException {

    public LlmException(String message) {
        super(message);
    }

    public LlmException(String message, Throwable cause) {
        super(message, cause);
    }
}

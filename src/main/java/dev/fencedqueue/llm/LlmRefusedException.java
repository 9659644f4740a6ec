package dev.fencedqueue.llm;

/**
 * The LLM server answered a request with a {@code 4xx} status other than {@code 429}, or {@code 501 Not Implemented}:
 * the request itself is refused (for example a trailing assistant message the model does not continue, or a route the
 * server does not offer), so sending it again would not help.
 */
public class LlmRefusedException extends LlmException {

    private final int status;

    /**
     * @param message what happened, naming the server and the status
     * @param status the HTTP status, {@code 4xx} or {@code 501}
     */
    public LlmRefusedException(String message, int status) {
        super(message);
        this.status = status;
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }
}

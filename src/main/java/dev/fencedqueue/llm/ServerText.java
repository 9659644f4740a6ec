package dev.fencedqueue.llm;

/**
 * How a failure quotes what an LLM server sent: at most 200 characters of it, in the product's words rather than a
 * parser's.
 */
final class ServerText {

    /** The most characters of a server's text a failure quotes. */
    private static final int QUOTED = 200;

    private ServerText() {
    }

    /**
     * @param text what the server sent; not null
     * @return the text, cut to its first 200 characters and {@code ...} when it is longer
     */
    static String abbreviate(String text) {
        return text.length() <= QUOTED ? text : text.substring(0, QUOTED) + "...";
    }

    /**
     * @param what what the text should have been, e.g. {@code malformed chat completion chunk}; not null
     * @param text the text the server sent; not null
     * @return the failure of the attempt: {@code <what>, not JSON: <the text, abbreviated>}
     */
    static LlmException notJson(String what, String text) {
        return new LlmException(what + ", not JSON: " + abbreviate(text));
    }
}

package dev.fencedqueue.llm;

import java.util.function.Consumer;

/**
 * Turns the lines of an SSE response into the data of its events, per the WHATWG "Server-sent events"
 * parsing rules this client needs: {@code data:} lines (one optional space after the colon) are joined
 * with newlines, a blank line dispatches the event, comment lines ({@code :}) and other fields
 * ({@code event}, {@code id}, {@code retry}) are ignored, an event the stream ends in is dropped. Not thread-safe.
 */
final class SseDecoder {

    private final Consumer<String> onData;
    private final StringBuilder data = new StringBuilder();
    private boolean hasData;

    SseDecoder(Consumer<String> onData) {
        this.onData = onData;
    }

    /** @param rawLine one line without its {@code \n}; a trailing {@code \r} is dropped */
    void line(String rawLine) {
        String line = rawLine.endsWith("\r") ? rawLine.substring(0, rawLine.length() - 1) : rawLine;
        if (line.isEmpty()) {
            dispatch();
            return;
        }
        if (line.startsWith(":")) {
            return;
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        if (!field.equals("data")) {
            return;
        }
        String value = colon < 0 ? "" : line.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        if (hasData) {
            data.append('\n');
        }
        data.append(value);
        hasData = true;
    }

    /**
     * Ends the stream: an event not yet followed by a blank line is discarded, as the spec says ("If the file ends in
     * the middle of an event, before the final empty line, the incomplete event is not dispatched"). A stream cut in
     * the middle of an event thus delivers nothing of it, and nothing of it is committed.
     */
    void end() {
        data.setLength(0);
        hasData = false;
    }

    private void dispatch() {
        if (hasData) {
            String payload = data.toString();
            data.setLength(0);
            hasData = false;
            onData.accept(payload);
        }
    }
}

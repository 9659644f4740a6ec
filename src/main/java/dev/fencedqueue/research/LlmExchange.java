package dev.fencedqueue.research;

import io.vertx.core.http.HttpClientResponse;

/**
 * An open streaming call to the research LLM: its response, paused until it is read.
 *
 * @param response the response, paused
 */
public record LlmExchange(HttpClientResponse response) {

    /** Closes the exchange before its end: for HTTP/1.x this closes the connection, which the server sees. */
    public void abort() {
        response.request().reset();
    }
}

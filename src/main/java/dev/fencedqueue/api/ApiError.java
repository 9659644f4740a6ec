package dev.fencedqueue.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.vertx.core.http.HttpServerResponse;

/**
 * The body of every error response: {@code {"error": "...", "message": "..."}}, plus the offending
 * {@code field} for bad input. Never a stack trace.
 *
 * @param error a stable machine-readable code: {@code bad_request}, {@code not_found}, {@code conflict},
 *        {@code payload_too_large}, {@code unsupported_media_type}, {@code unavailable}, {@code internal}, ...
 * @param message what went wrong, for humans
 * @param field the request field at fault, or {@code null}
 */
// Returned by exception mappers and filters, not by resource methods, so Quarkus does not register it by itself:
// without this, Jackson writes {} in the native executable.
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApiError(String error, String message, String field) {

    /** The answer while Redis cannot be reached (503), the same from every endpoint. */
    public static final ApiError REDIS_UNAVAILABLE = of("unavailable", "the job store (Redis) is unavailable, retry later");

    public static ApiError of(String error, String message) {
        return new ApiError(error, message, null);
    }

    /**
     * Ends a Vert.x route's response with this error as its JSON body (for the routes outside the REST layer, whose
     * errors the exception mappers do not see).
     *
     * @param response the response, nothing written yet
     * @param status the HTTP status
     * @param json serializes the body
     */
    public void send(HttpServerResponse response, int status,
            ObjectMapper json) {
        try {
            response.setStatusCode(status).putHeader("Content-Type", "application/json").end(json.writeValueAsString(this));
        } catch (JsonProcessingException e) {
            response.setStatusCode(500).end();
        }
    }
}

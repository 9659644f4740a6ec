package dev.fencedqueue.api;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.quarkus.runtime.annotations.RegisterForReflection;

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

    public static ApiError of(String error, String message) {
        return new ApiError(error, message, null);
    }
}

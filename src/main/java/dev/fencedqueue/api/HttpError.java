package dev.fencedqueue.api;

import java.sql.SQLException;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.Failures;
import dev.fencedqueue.postgres.DatabaseUnavailableException;
import dev.fencedqueue.queue.IdempotencyKeyReusedException;
import dev.fencedqueue.queue.JobFinishedException;
import dev.fencedqueue.queue.JobNotFoundException;
import dev.fencedqueue.queue.JobStateConflictException;
import dev.fencedqueue.redis.NotReplicatedException;
import dev.fencedqueue.redis.RedisFailures;
import dev.fencedqueue.redis.RedisFullException;
import dev.fencedqueue.redis.RedisUnavailableException;
import dev.fencedqueue.queue.InvalidJobDataException;
import io.vertx.core.http.HttpServerResponse;
import jakarta.ws.rs.core.MediaType;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.RestResponse;

/**
 * One HTTP error: its status, its JSON body and its headers. {@link #of} is the one mapping from the service's
 * exceptions to the errors of the HTTP API (400 for bad input, 401/403, 404, 409, 422, 429, 503; 500 for anything else,
 * never with a stack trace); the REST exception mappers ({@link ApiExceptionMappers}) and the SSE routes
 * ({@link JobStreamRoutes}) both answer through it.
 *
 * @param status the HTTP status
 * @param body the JSON body
 * @param headers extra response headers ({@code Retry-After}, {@code WWW-Authenticate}), empty when none
 */
public record HttpError(int status, ApiError body, Map<String, String> headers) {

    private static final Logger LOG = Logger.getLogger(HttpError.class);

    /** @return an error without extra headers */
    static HttpError of(int status, ApiError body) {
        return new HttpError(status, body, Map.of());
    }

    /**
     * Maps a failure to the error that answers it. Only the service's own input validation
     * ({@link InvalidParameterException}, {@link InvalidJobDataException}) is a 400 here: an {@link IllegalArgumentException} from the service's own
     * code is a bug, answered 500 and logged.
     *
     * @param failure any failure, must not be {@code null}
     * @return the error
     */
    public static HttpError of(Throwable failure) {
        if (failure instanceof JobNotFoundException || failure instanceof UnknownChannelException) {
            return of(404, ApiError.of("not_found", failure.getMessage()));
        }
        if (failure instanceof JobFinishedException || failure instanceof JobStateConflictException) {
            return of(409, ApiError.of("conflict", failure.getMessage()));
        }
        if (failure instanceof IdempotencyKeyReusedException) {
            return of(422, ApiError.of("idempotency_key_reused", failure.getMessage()));
        }
        if (failure instanceof InvalidParameterException invalid) {
            return of(400, new ApiError("bad_request", invalid.getMessage(), invalid.field()));
        }
        if (failure instanceof InvalidJobDataException invalid) {
            return of(400, new ApiError("bad_request", invalid.getMessage(), invalid.field()));
        }
        if (failure instanceof JobAccessException refused) {
            return new HttpError(refused.status(), ApiError.of(refused.code(), refused.getMessage()),
                    refused.status() == 401 ? Map.of("WWW-Authenticate", "Bearer") : Map.of());
        }
        if (failure instanceof TooManyRequestsException limited) {
            // Retry-After in whole seconds (RFC 9110), rounded up so that a client that waits that long gets in.
            long seconds = Math.max(1, (limited.retryAfter().toMillis() + 999) / 1000);
            return new HttpError(429, ApiError.of("too_many_requests", limited.getMessage()),
                    Map.of("Retry-After", Long.toString(seconds)));
        }
        if (failure instanceof NotReplicatedException notReplicated) {
            LOG.warnf("a write did not become durable: %s", notReplicated.getMessage());
            return new HttpError(503, ApiError.of("not_replicated", notReplicated.getMessage()
                    + "; retry, with the same Idempotency-Key"), Map.of("Retry-After", "1"));
        }
        if (failure instanceof RedisFullException full) {
            LOG.debugf("a write was refused: %s", full.getMessage()); // RedisMemory logs the crossing once
            return new HttpError(503, ApiError.of("redis_full", full.getMessage() + "; retry later"),
                    Map.of("Retry-After", Long.toString(RedisFullException.RETRY_AFTER.toSeconds())));
        }
        if (failure instanceof RedisUnavailableException || RedisFailures.isConnectionFailure(failure)) {
            LOG.debugf("Redis unavailable: %s", Failures.describe(failure));
            return of(503, ApiError.REDIS_UNAVAILABLE);
        }
        if (failure instanceof DatabaseUnavailableException) {
            LOG.debugf("database unavailable: %s", Failures.describe(failure));
            return of(503, ApiError.of("unavailable", Failures.describe(failure)));
        }
        if (failure instanceof SQLException sql) {
            LOG.warnf("database call failed: %s (SQL state %s)", Failures.describe(sql), sql.getSQLState());
            return of(503, ApiError.of("unavailable", "the database (PostgreSQL) is unavailable, retry later"));
        }
        LOG.error("unexpected error", failure);
        return of(500, ApiError.of("internal", "unexpected error"));
    }

    /** @return this error as the REST layer's response */
    RestResponse<ApiError> toRest() {
        RestResponse.ResponseBuilder<ApiError> response = RestResponse.ResponseBuilder.<ApiError>create(status)
                .entity(body).type(MediaType.APPLICATION_JSON_TYPE);
        headers.forEach(response::header);
        return response.build();
    }

    /**
     * Ends a Vert.x route's response with this error (for the routes outside the REST layer, whose errors the
     * exception mappers do not see).
     *
     * @param response the response, nothing written yet, must not be {@code null}
     * @param json serializes the body, must not be {@code null}
     */
    void send(HttpServerResponse response, ObjectMapper json) {
        headers.forEach(response::putHeader);
        body.send(response, status, json);
    }
}

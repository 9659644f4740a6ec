package dev.fencedqueue.api;

import java.sql.SQLException;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.fencedqueue.bulk.DatabaseUnavailableException;
import dev.fencedqueue.queue.JobFinishedException;
import dev.fencedqueue.queue.JobNotFoundException;
import dev.fencedqueue.queue.JobStateConflictException;
import dev.fencedqueue.redis.NotReplicatedException;
import dev.fencedqueue.redis.RedisUnavailableException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Maps exceptions to the JSON errors of DESIGN.md: 400, 404, 409, 413, 503; never a stack trace. */
public class ApiExceptionMappers {

    private static final Logger LOG = Logger.getLogger(ApiExceptionMappers.class);

    @ServerExceptionMapper
    public RestResponse<ApiError> notFound(JobNotFoundException e) {
        return error(Response.Status.NOT_FOUND, ApiError.of("not_found", e.getMessage()));
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> finished(JobFinishedException e) {
        return error(Response.Status.CONFLICT, ApiError.of("conflict", e.getMessage()));
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> stateConflict(JobStateConflictException e) {
        return error(Response.Status.CONFLICT, ApiError.of("conflict", e.getMessage()));
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> unavailable(RedisUnavailableException e) {
        LOG.debugf("Redis unavailable: %s", e.getMessage());
        return error(Response.Status.SERVICE_UNAVAILABLE, ApiError.REDIS_UNAVAILABLE);
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> access(JobAccessException e) {
        RestResponse.ResponseBuilder<ApiError> response = RestResponse.ResponseBuilder.<ApiError>create(e.status())
                .entity(ApiError.of(e.code(), e.getMessage())).type(MediaType.APPLICATION_JSON_TYPE);
        if (e.status() == 401) {
            response.header("WWW-Authenticate", "Bearer");
        }
        return response.build();
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> notReplicated(NotReplicatedException e) {
        LOG.warnf("a write did not become durable: %s", e.getMessage());
        return RestResponse.ResponseBuilder.<ApiError>create(Response.Status.SERVICE_UNAVAILABLE)
                .entity(ApiError.of("not_replicated", e.getMessage() + "; retry, with the same Idempotency-Key"))
                .type(MediaType.APPLICATION_JSON_TYPE).header("Retry-After", "1").build();
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> tooManyRequests(TooManyRequestsException e) {
        // Retry-After in whole seconds (RFC 9110), rounded up so that a client that waits that long gets in.
        long seconds = Math.max(1, (e.retryAfter().toMillis() + 999) / 1000);
        return RestResponse.ResponseBuilder.<ApiError>create(Response.Status.TOO_MANY_REQUESTS)
                .entity(ApiError.of("too_many_requests", e.getMessage())).type(MediaType.APPLICATION_JSON_TYPE)
                .header("Retry-After", Long.toString(seconds)).build();
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> invalid(ConstraintViolationException e) {
        ConstraintViolation<?> first = e.getConstraintViolations().stream()
                .min(java.util.Comparator.comparing(v -> v.getPropertyPath().toString())).orElse(null);
        if (first == null) {
            return error(Response.Status.BAD_REQUEST, ApiError.of("bad_request", "invalid request"));
        }
        String path = first.getPropertyPath().toString();
        String field = path.substring(path.lastIndexOf('.') + 1);
        String message = first.getMessage();
        if (message.startsWith("must")) {
            message = "`" + field + "` " + message;
        }
        return error(Response.Status.BAD_REQUEST, new ApiError("bad_request", message, field));
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> malformedJson(JsonProcessingException e) {
        return error(Response.Status.BAD_REQUEST, ApiError.of("bad_request",
                "the request body is not valid JSON: " + e.getOriginalMessage()));
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> mismatchedJson(MismatchedInputException e) {
        String field = e.getPath().isEmpty() ? null : e.getPath().get(e.getPath().size() - 1).getFieldName();
        if (field == null) {
            return malformedJson(e);
        }
        return error(Response.Status.BAD_REQUEST, new ApiError("bad_request",
                "`" + field + "` must be " + expected(e.getTargetType()), field));
    }

    /** @return what a JSON value of {@code type} looks like, for a message ("a string", "an integer" ...) */
    private static String expected(Class<?> type) {
        if (type == null) {
            return "of another type";
        }
        if (CharSequence.class.isAssignableFrom(type)) {
            return "a string";
        }
        if (type == int.class || type == long.class || type == Integer.class || type == Long.class) {
            return "an integer";
        }
        if (type == double.class || type == float.class || Number.class.isAssignableFrom(type)) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        }
        return "an object";
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> unknownChannel(UnknownChannelException e) {
        return error(Response.Status.NOT_FOUND, ApiError.of("not_found", e.getMessage()));
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> databaseUnavailable(DatabaseUnavailableException e) {
        LOG.debugf("database unavailable: %s", e.getMessage());
        return error(Response.Status.SERVICE_UNAVAILABLE, ApiError.of("unavailable", e.getMessage()));
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> databaseFailed(SQLException e) {
        LOG.warnf("database call failed: %s (SQL state %s)", e.getMessage(), e.getSQLState());
        return error(Response.Status.SERVICE_UNAVAILABLE, ApiError.of("unavailable",
                "the database (PostgreSQL) is unavailable, retry later"));
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> invalidParameter(InvalidParameterException e) {
        return error(Response.Status.BAD_REQUEST, new ApiError("bad_request", e.getMessage(), e.field()));
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> badArgument(IllegalArgumentException e) {
        return error(Response.Status.BAD_REQUEST, ApiError.of("bad_request", e.getMessage()));
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> web(WebApplicationException e) {
        if (e.getCause() instanceof MismatchedInputException mismatched) {
            return mismatchedJson(mismatched);
        }
        if (e.getCause() instanceof JsonProcessingException json) {
            return malformedJson(json);
        }
        int status = e.getResponse().getStatus();
        Response.StatusType type = Response.Status.fromStatusCode(status);
        String code = type == null ? "error" : type.getReasonPhrase().toLowerCase(java.util.Locale.ROOT).replace(' ', '_');
        return RestResponse.ResponseBuilder.<ApiError>create(status)
                .entity(ApiError.of(code, e.getMessage())).type(MediaType.APPLICATION_JSON_TYPE).build();
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> unexpected(RuntimeException e) {
        if (dev.fencedqueue.redis.SharedConnection.isConnectionFailure(e)) {
            return unavailable(new RedisUnavailableException(e.getMessage(), e));
        }
        LOG.error("unexpected error", e);
        return error(Response.Status.INTERNAL_SERVER_ERROR, ApiError.of("internal", "unexpected error"));
    }

    static RestResponse<ApiError> error(Response.Status status, ApiError body) {
        return RestResponse.ResponseBuilder.create(status, body).type(MediaType.APPLICATION_JSON_TYPE).build();
    }
}

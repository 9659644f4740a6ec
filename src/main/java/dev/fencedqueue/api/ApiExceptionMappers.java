package dev.fencedqueue.api;

import java.sql.SQLException;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The REST layer's exception mappers. The service's own exceptions are answered as {@link HttpError#of} maps them
 * (the one mapping, which the SSE routes use too); the mappers here add what only a REST request can fail with: Bean
 * Validation, a body that is not the JSON expected, and JAX-RS's own errors. Never a stack trace.
 */
public class ApiExceptionMappers {

    /** The service's own failures, and anything unexpected (500). */
    @ServerExceptionMapper
    public RestResponse<ApiError> mapped(RuntimeException e) {
        return HttpError.of(e).toRest();
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> databaseFailed(SQLException e) {
        return HttpError.of(e).toRest();
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

    static RestResponse<ApiError> error(Response.Status status, ApiError body) {
        return RestResponse.ResponseBuilder.create(status, body).type(MediaType.APPLICATION_JSON_TYPE).build();
    }
}

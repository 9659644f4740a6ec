package dev.fencedqueue.api;

import java.sql.SQLException;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.fencedqueue.queue.DataFields;
import dev.fencedqueue.queue.InvalidJobDataException;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The REST layer's exception mappers. The service's own exceptions are answered as {@link HttpError#of} maps them
 * (the one mapping, which the SSE routes use too); the mappers here add what only a REST request can fail with: Bean
 * Validation, a body that is not the JSON expected, and JAX-RS's own errors. Every message is in the product's words
 * ({@link DataFields}: the field by its path, {@code subscriberIds[3]}); never a stack trace, a class name or a
 * library's message.
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

    /** Bean Validation of a request body or parameter: 400 naming the first field at fault by its path. */
    @ServerExceptionMapper
    public RestResponse<ApiError> invalid(ConstraintViolationException e) {
        if (e.getConstraintViolations() == null || e.getConstraintViolations().isEmpty()) {
            return error(Response.Status.BAD_REQUEST, ApiError.of("bad_request", "invalid request"));
        }
        return badRequest(DataFields.refusal("", e.getConstraintViolations()));
    }

    /** A body that is not JSON, or not the JSON expected (a field it does not have, a value of another type). */
    @ServerExceptionMapper
    public RestResponse<ApiError> unreadable(JsonProcessingException e) {
        return badRequest(DataFields.refusal("", e));
    }

    /** As {@link #unreadable}; declared for its own type so that no more specific mapper of a library answers it. */
    @ServerExceptionMapper
    public RestResponse<ApiError> mismatchedJson(MismatchedInputException e) {
        return unreadable(e);
    }

    /** JAX-RS's own refusals (a wrong method, content type or accepted type), and {@code NotFoundException}s. */
    @ServerExceptionMapper
    public RestResponse<ApiError> web(WebApplicationException e, HttpHeaders headers) {
        if (e.getCause() instanceof JsonProcessingException json) {
            return unreadable(json);
        }
        int status = e.getResponse().getStatus();
        Response.StatusType type = Response.Status.fromStatusCode(status);
        String code = type == null ? "error" : type.getReasonPhrase().toLowerCase(Locale.ROOT).replace(' ', '_');
        String message = switch (status) {
            case 405 -> "this path does not take that method";
            case 406 -> "this endpoint cannot answer in a type the Accept header allows (it answers JSON, or an "
                    + "event stream for the stream endpoints)";
            case 415 -> "the request body must be JSON (Content-Type: application/json), was "
                    + (headers.getMediaType() == null ? "no Content-Type" : headers.getMediaType().toString());
            default -> ours(e.getMessage(), type);
        };
        return RestResponse.ResponseBuilder.<ApiError>create(status)
                .entity(ApiError.of(code, message)).type(MediaType.APPLICATION_JSON_TYPE).build();
    }

    /** @return a message of the service's own, else the status in words (JAX-RS's default is "HTTP 404 Not Found") */
    private static String ours(String message, Response.StatusType type) {
        if (message == null || message.isBlank() || message.startsWith("HTTP ")) {
            return type == null ? "the request failed" : type.getReasonPhrase().toLowerCase(Locale.ROOT);
        }
        return message;
    }

    private static RestResponse<ApiError> badRequest(InvalidJobDataException refusal) {
        return error(Response.Status.BAD_REQUEST, new ApiError("bad_request", refusal.getMessage(), refusal.field()));
    }

    static RestResponse<ApiError> error(Response.Status status, ApiError body) {
        return RestResponse.ResponseBuilder.create(status, body).type(MediaType.APPLICATION_JSON_TYPE).build();
    }
}

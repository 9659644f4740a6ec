package dev.fencedqueue.api.admin;

import dev.fencedqueue.api.ApiError;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Maps the operator API's own exceptions to the JSON errors of DESIGN.md. */
public class AdminExceptionMappers {

    @ServerExceptionMapper
    public RestResponse<ApiError> invalidParameter(InvalidParameterException e) {
        return RestResponse.ResponseBuilder.create(Response.Status.BAD_REQUEST,
                new ApiError("bad_request", e.getMessage(), e.field())).type(MediaType.APPLICATION_JSON_TYPE).build();
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> unknownQueue(UnknownQueueException e) {
        return RestResponse.ResponseBuilder.create(Response.Status.NOT_FOUND, ApiError.of("not_found", e.getMessage()))
                .type(MediaType.APPLICATION_JSON_TYPE).build();
    }
}

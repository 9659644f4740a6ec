package dev.fencedqueue.api.admin;

import java.util.Optional;

import dev.fencedqueue.api.ApiError;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Maps the operator API's own exceptions, and the security layer's, to the service's JSON errors
 * ({@code {"error": ..., "message": ...}}, docs/http-api.md#errors). The {@code /admin} permission is checked on the
 * REST layer ({@code applies-to=JAXRS}) so that a refused request reaches these mappers: 401 carries the HTTP Basic
 * challenge ({@code WWW-Authenticate: basic realm="fenced-queue"}, RFC 7617, the realm of
 * {@code quarkus.http.auth.realm}, as Quarkus's Basic mechanism words it) and a JSON body, 403 a JSON body.
 */
public class AdminExceptionMappers {

    /** The challenge of a 401: HTTP Basic, in the configured realm ({@code basic} alone without one). */
    private final String challenge;

    public AdminExceptionMappers(@ConfigProperty(name = "quarkus.http.auth.realm") Optional<String> realm) {
        this.challenge = realm.map(name -> "basic realm=\"" + name + "\"").orElse("basic");
    }

    /** No credentials, or credentials the realm does not know: 401 with the challenge. */
    @ServerExceptionMapper({UnauthorizedException.class, AuthenticationFailedException.class})
    public RestResponse<ApiError> unauthenticated() {
        return RestResponse.ResponseBuilder.create(Response.Status.UNAUTHORIZED, ApiError.of("unauthorized",
                "the operator API needs HTTP Basic credentials of a user with role `" + AdminUserConfigSourceFactory.ROLE
                        + "`"))
                .type(MediaType.APPLICATION_JSON_TYPE).header(HttpHeaders.WWW_AUTHENTICATE, challenge).build();
    }

    /** Authenticated, but without the operator role: 403. */
    @ServerExceptionMapper
    public RestResponse<ApiError> forbidden(ForbiddenException e) {
        return RestResponse.ResponseBuilder.create(Response.Status.FORBIDDEN, ApiError.of("forbidden",
                "the operator API needs role `" + AdminUserConfigSourceFactory.ROLE + "`"))
                .type(MediaType.APPLICATION_JSON_TYPE).build();
    }

    @ServerExceptionMapper
    public RestResponse<ApiError> unknownQueue(UnknownQueueException e) {
        return RestResponse.ResponseBuilder.create(Response.Status.NOT_FOUND, ApiError.of("not_found", e.getMessage()))
                .type(MediaType.APPLICATION_JSON_TYPE).build();
    }
}

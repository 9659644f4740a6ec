package dev.fencedqueue.api.admin;

import dev.fencedqueue.api.ApiError;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticator;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Maps the operator API's own exceptions, and the security layer's, to the service's JSON errors
 * ({@code {"error": ..., "message": ...}}, docs/http-api.md#errors). The {@code /admin} permission is checked on the
 * REST layer ({@code applies-to=JAXRS}) so that a refused request reaches these mappers: 401 carries the authentication
 * mechanism's challenge ({@code WWW-Authenticate: Basic realm="fenced-queue"}, RFC 7617) and a JSON body, 403 a JSON
 * body.
 */
public class AdminExceptionMappers {

    /** No credentials, or credentials the realm does not know: 401 with the challenge. */
    @ServerExceptionMapper({UnauthorizedException.class, AuthenticationFailedException.class})
    public Uni<RestResponse<ApiError>> unauthenticated(RoutingContext request) {
        HttpAuthenticator authenticator = request.get(HttpAuthenticator.class.getName());
        ApiError body = ApiError.of("unauthorized", "the operator API needs HTTP Basic credentials of a user with role `"
                + AdminUserConfigSourceFactory.ROLE + "`");
        return authenticator.getChallenge(request).map(challenge -> {
            RestResponse.ResponseBuilder<ApiError> response = RestResponse.ResponseBuilder
                    .<ApiError>create(Response.Status.UNAUTHORIZED, body).type(MediaType.APPLICATION_JSON_TYPE);
            if (challenge != null && challenge.headerName != null) {
                response.header(challenge.headerName.toString(), challenge.headerContent);
            }
            return response.build();
        });
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

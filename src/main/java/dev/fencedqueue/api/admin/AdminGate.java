package dev.fencedqueue.api.admin;

import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Authenticates every request under {@code /admin} before the REST layer matches it to a method, so that the operator
 * API's paths cannot be probed: without valid credentials a path that does not exist, or a method a path does not
 * allow, answers 401 like any other, not 404 or 405 (the {@code /admin} permission itself is checked after matching,
 * where {@link AdminExceptionMappers} shape the refusal). The role is still checked per method: a user without it
 * gets 403 there.
 */
public class AdminGate {

    private final CurrentIdentityAssociation identity;

    public AdminGate(CurrentIdentityAssociation identity) {
        this.identity = identity;
    }

    @ServerRequestFilter(preMatching = true)
    public Uni<Void> requireCredentials(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        if (!path.equals("/admin") && !path.startsWith("/admin/")) {
            return Uni.createFrom().voidItem();
        }
        return identity.getDeferredIdentity().invoke(caller -> {
            if (caller.isAnonymous()) {
                throw new UnauthorizedException();
            }
        }).replaceWithVoid();
    }
}

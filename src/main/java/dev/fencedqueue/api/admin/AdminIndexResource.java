package dev.fencedqueue.api.admin;

import java.net.URI;

import io.smallrye.common.annotation.NonBlocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The operator API's root: where its parts are (JSON), or, for a browser (which prefers HTML), the operator
 * console. HTTP Basic, role {@code admin}.
 */
@Path("/admin")
@RolesAllowed(AdminUserConfigSourceFactory.ROLE)
@Tag(name = "admin", description = "Operator API: queues, jobs and maintenance (HTTP Basic, role admin)")
public class AdminIndexResource {

    /**
     * @param queues the queues with their counts, and below them each queue's jobs and maintenance
     * @param openApi the OpenAPI document describing every operator path
     * @param console the operator console (HTML)
     */
    public record AdminIndex(String queues, String openApi, String console) {
    }

    /** Where the console's static files are served (under the same authentication as the API). */
    static final String CONSOLE = "/admin/console/";

    @GET
    @Produces("application/json;qs=1")
    @Operation(summary = "Where the operator API's parts are")
    @NonBlocking
    public AdminIndex index() {
        return new AdminIndex("/admin/queues", "/q/openapi", CONSOLE);
    }

    @GET
    @Produces("text/html;qs=0.9")
    @Operation(summary = "The operator console (a browser asking for HTML is sent there)")
    @NonBlocking
    public Response console() {
        return Response.seeOther(URI.create(CONSOLE)).build();
    }
}

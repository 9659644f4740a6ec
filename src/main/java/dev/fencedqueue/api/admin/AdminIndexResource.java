package dev.fencedqueue.api.admin;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** The operator API's root: where its parts are. HTTP Basic, role {@code admin}. */
@Path("/admin")
@RolesAllowed(AdminUserConfigSourceFactory.ROLE)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Operator API: queues, jobs and maintenance (HTTP Basic, role admin)")
public class AdminIndexResource {

    /**
     * @param queues the queues with their counts, and below them each queue's jobs and maintenance
     * @param openApi the OpenAPI document describing every operator path
     */
    public record AdminIndex(String queues, String openApi) {
    }

    @GET
    @Operation(summary = "Where the operator API's parts are")
    public AdminIndex index() {
        return new AdminIndex("/admin/queues", "/q/openapi");
    }
}

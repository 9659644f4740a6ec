package dev.fencedqueue.api;

import java.util.function.Supplier;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.Job;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Optional ownership of research jobs ({@code fq.research.require-owner}): the caller who starts a job, identified by
 * its bearer JWT's principal (SmallRye JWT: {@code upn}, {@code preferred_username}, else {@code sub}), is recorded
 * in the job's data as {@code owner}, and only that principal may read the job (status, history, stream) or abort it.
 * Off, it lets everyone through and records nothing.
 */
@ApplicationScoped
public class JobOwnership {

    /** The job data field that holds the owner. */
    static final String OWNER = "owner";

    private final boolean required;
    private final ObjectMapper json;

    public JobOwnership(ResearchConfig config, ObjectMapper json) {
        this.required = config.requireOwner();
        this.json = json;
    }

    /** @return whether jobs belong to their callers ({@code fq.research.require-owner}) */
    public boolean required() {
        return required;
    }

    /**
     * Who calls, when it matters: authentication is lazy here ({@code quarkus.http.auth.proactive=false}), so the
     * identity is resolved (its bearer token verified) only when ownership is on.
     *
     * @param identity the request's deferred identity ({@code CurrentIdentityAssociation#getDeferredIdentity()})
     * @return the caller's principal name; {@code null} when anonymous or when ownership is off; fails with
     *         {@link JobAccessException} (401) when the request's token is not valid
     */
    public Uni<String> caller(Supplier<Uni<SecurityIdentity>> identity) {
        if (!required) {
            return Uni.createFrom().nullItem();
        }
        return identity.get().map(caller -> caller == null || caller.isAnonymous() ? null
                : caller.getPrincipal().getName())
                .onFailure(AuthenticationFailedException.class).transform(invalid -> JobAccessException.unauthenticated());
    }

    /**
     * The data of a job being started: the request as it came, with its owner when ownership is on.
     *
     * @param request the request, serializable to a JSON object
     * @param caller the caller's principal name, {@code null} when anonymous
     * @return the job data
     * @throws JobAccessException (401) when ownership is on and the caller is anonymous
     */
    public Object dataFor(Object request, String caller) {
        if (!required) {
            return request;
        }
        ObjectNode data = json.valueToTree(request);
        data.put(OWNER, authenticated(caller));
        return data;
    }

    /**
     * @param job the job read or aborted
     * @param caller the caller's principal name, {@code null} when anonymous
     * @throws JobAccessException when ownership is on and the caller is anonymous (401) or not the job's owner (403,
     *         also for a job started before ownership was turned on, which has no owner)
     */
    public void checkAccess(Job job, String caller) {
        if (required && !authenticated(caller).equals(ownerOf(job))) {
            throw JobAccessException.notOwner(job.id());
        }
    }

    private static String authenticated(String caller) {
        if (caller == null) {
            throw JobAccessException.unauthenticated();
        }
        return caller;
    }

    private String ownerOf(Job job) {
        try {
            JsonNode owner = json.readTree(job.data() == null ? "{}" : job.data()).path(OWNER);
            return owner.isTextual() ? owner.asText() : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }
}

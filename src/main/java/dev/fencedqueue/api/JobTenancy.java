package dev.fencedqueue.api;

import java.util.function.Supplier;

import dev.fencedqueue.queue.TenantIds;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The tenant of a job added over HTTP ({@code fq.tenancy.source}): none (the tenant {@code default}), the bearer
 * JWT's principal, or a header a trusted gateway sets. A request whose tenant cannot be told is refused before
 * anything is written.
 */
@ApplicationScoped
public class JobTenancy {

    private final TenancyConfig config;

    public JobTenancy(TenancyConfig config) {
        this.config = config;
    }

    /**
     * @param http the request
     * @param identity the request's deferred identity ({@code CurrentIdentityAssociation#getDeferredIdentity()}),
     *        resolved (its bearer token verified) only with {@code fq.tenancy.source=principal}
     * @return the tenant ({@link TenantIds}), {@code null} for the default one (tenancy off); fails with
     *         {@link InvalidParameterException} (400) naming the header when it is missing or not a tenant id, or the
     *         token's principal when that is not one, and with {@link JobAccessException} (401) when the principal
     *         is wanted and the request carries no valid bearer token
     */
    public Uni<String> tenantOf(HttpServerRequest http, Supplier<Uni<SecurityIdentity>> identity) {
        return switch (config.source()) {
            case NONE -> Uni.createFrom().nullItem();
            case HEADER -> Uni.createFrom().item(() -> fromHeader(config.header(), http.getHeader(config.header())));
            case PRINCIPAL -> identity.get()
                    .onFailure(AuthenticationFailedException.class).transform(invalid -> JobAccessException.tenantless())
                    .map(caller -> {
                        if (caller == null || caller.isAnonymous()) {
                            throw JobAccessException.tenantless();
                        }
                        return fromPrincipal(caller.getPrincipal().getName());
                    });
        };
    }

    private static String fromHeader(String header, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidParameterException(header, "`" + header + "` must name the tenant the job belongs to");
        }
        if (!TenantIds.isValid(value)) {
            throw new InvalidParameterException(header, "`" + header + "` must be " + TenantIds.RULE);
        }
        return value;
    }

    private static String fromPrincipal(String principal) {
        if (!TenantIds.isValid(principal)) {
            throw new InvalidParameterException("Authorization", "the bearer token's principal cannot name a tenant: "
                    + "a tenant id is " + TenantIds.RULE);
        }
        return principal;
    }
}

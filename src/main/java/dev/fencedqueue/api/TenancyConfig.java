package dev.fencedqueue.api;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Who a job belongs to ({@code fq.tenancy.*}): the tenant each job records, on which a queue shared by many users is
 * divided (see {@code dev.fencedqueue.queue.TenantIds} for what a tenant id may hold).
 */
@ConfigMapping(prefix = "fq.tenancy")
public interface TenancyConfig {

    /** Where the tenant of a job added over HTTP comes from. */
    enum Source {
        /** Every job belongs to the tenant {@code default}. */
        NONE,
        /**
         * The principal of the request's bearer JWT, as {@code fq.research.require-owner} reads it (SmallRye JWT:
         * {@code upn}, {@code preferred_username}, else {@code sub}); a request without a valid token gets {@code 401}.
         */
        PRINCIPAL,
        /**
         * The header named by {@link #header()}, set by a trusted gateway in front of the service; a request without
         * it gets {@code 400}.
         */
        HEADER
    }

    /** Where a job's tenant comes from: {@code none}, {@code principal} or {@code header}. */
    @WithDefault("none")
    Source source();

    /** The header that names the tenant when {@link #source()} is {@code header}. */
    @WithDefault("X-Tenant-Id")
    String header();
}

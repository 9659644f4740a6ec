package dev.fencedqueue.api;

import com.fasterxml.jackson.annotation.JsonInclude;

import dev.fencedqueue.queue.TenantIds;

/**
 * The body of {@code GET /research/settings}: what a client (the research page) must send to start a job, read
 * before it starts one so that it can ask its user for it. Public: it names settings, never a tenant or a job.
 *
 * @param tenancy where a job's tenant comes from
 */
public record ResearchSettings(Tenancy tenancy) {

    /**
     * @param source {@code none} (nothing to send), {@code header} (send the tenant in {@code header}) or
     *        {@code principal} (send a bearer JWT, whose principal is the tenant), as {@code fq.tenancy.source}
     * @param header the header that names the tenant ({@code fq.tenancy.header}); only with {@code header}
     * @param rule what a tenant id may be, in words; only with {@code header}
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Tenancy(String source, String header, String rule) {
    }

    /**
     * @param config the tenancy configuration, must not be {@code null}
     * @return the settings it makes
     */
    static ResearchSettings of(TenancyConfig config) {
        String source = config.source().name().toLowerCase(java.util.Locale.ROOT);
        boolean header = config.source() == TenancyConfig.Source.HEADER;
        return new ResearchSettings(new Tenancy(source, header ? config.header() : null,
                header ? TenantIds.RULE : null));
    }
}

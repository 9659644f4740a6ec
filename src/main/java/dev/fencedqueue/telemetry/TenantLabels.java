package dev.fencedqueue.telemetry;

/**
 * The label that metrics give a job's tenant, from a bounded set (as Prometheus asks of labels). Tenancy implements it
 * ({@code tenancy.Tenants}, a CDI bean), so that this package does not depend on it.
 */
public interface TenantLabels {

    /**
     * @param tenant a job's tenant, {@code null} for the default one
     * @return its label in metrics, never {@code null}
     */
    String metricLabel(String tenant);
}

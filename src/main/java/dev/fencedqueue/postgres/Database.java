package dev.fencedqueue.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import io.agroal.api.AgroalDataSource;
import io.quarkus.arc.InjectableInstance;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The PostgreSQL datasource, when one is configured ({@code quarkus.datasource.jdbc.url}): the bulk jobs' sink and
 * cursors, the notifications and the job archive use it. Without a URL Quarkus leaves the datasource inactive: the
 * service still runs its research jobs, and the bulk API answers 503.
 */
@ApplicationScoped
public class Database {

    private final InjectableInstance<AgroalDataSource> dataSource;

    public Database(InjectableInstance<AgroalDataSource> dataSource) {
        this.dataSource = dataSource;
    }

    /** @return whether a datasource is configured */
    public boolean isConfigured() {
        return !dataSource.listActive().isEmpty();
    }

    /**
     * Opens a connection; blocking (call it on a worker or virtual thread).
     *
     * @return a pooled connection, auto-commit on
     * @throws DatabaseUnavailableException when no datasource is configured
     * @throws SQLException when the pool cannot give one (the database is down, the pool is exhausted)
     */
    public Connection connection() throws SQLException {
        List<AgroalDataSource> active = dataSource.listActive();
        if (active.isEmpty()) {
            throw new DatabaseUnavailableException("no PostgreSQL is configured: set quarkus.datasource.jdbc.url");
        }
        return active.get(0).getConnection();
    }
}

package dev.fencedqueue.bulk;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The connection a chunked job's blocking step is using, so that cancelling the job (its token went stale, an
 * abort, a shutdown) ends a statement that ignores thread interrupts: the connection is aborted
 * ({@link Connection#abort}), its statement fails and its transaction rolls back whole.
 */
final class ConnectionGuard {

    private final AtomicReference<Connection> inUse = new AtomicReference<>();

    /** Registers a connection the step opened; returns it. */
    Connection track(Connection connection) {
        inUse.set(connection);
        return connection;
    }

    /** Forgets the connection once the step is done with it. */
    void release() {
        inUse.set(null);
    }

    /** Aborts the connection in use, if any; called on cancellation, from any thread. */
    void abort() {
        Connection connection = inUse.getAndSet(null);
        if (connection != null) {
            try {
                connection.abort(Runnable::run);
            } catch (SQLException | RuntimeException e) {
                // the step fails on its own once the connection is gone; nothing more to do here
            }
        }
    }
}

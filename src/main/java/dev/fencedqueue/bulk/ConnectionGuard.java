package dev.fencedqueue.bulk;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The connection a chunked job's blocking step is using, so that cancelling the job (its token went stale, an
 * abort, a shutdown) ends a statement that ignores thread interrupts: the database connection is aborted
 * ({@link Connection#abort}: its socket closed), its statement fails, and the server rolls its transaction back whole
 * and releases the row locks it held (the cursor row a newer epoch must claim).
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

    /**
     * Aborts the database connection in use, if any; called on cancellation, from any thread. A pool's connection
     * (Agroal's wrapper) is not aborted itself: its {@code abort} only marks the wrapper closed, leaving the database
     * connection under it open in its transaction, holding its locks, and never back in the pool. The driver's
     * connection is aborted instead; the step's next call on the wrapper then fails, and the pool drops the
     * connection when the step closes it.
     */
    void abort() {
        Connection connection = inUse.getAndSet(null);
        if (connection != null) {
            try {
                Connection database = connection.isWrapperFor(Connection.class) ? connection.unwrap(Connection.class)
                        : connection;
                database.abort(Runnable::run);
            } catch (SQLException | RuntimeException e) {
                // the step fails on its own once the connection is gone; nothing more to do here
            }
        }
    }
}

package dev.fencedqueue.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.fencedqueue.notifications.PostgresNotificationFanOut;
import dev.fencedqueue.testing.FanOutRows;
import dev.fencedqueue.testing.NotificationRows;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.Timeouts;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The chunked-job runtime with the PostgreSQL sink, on a real PostgreSQL and Redis: the sink contract
 * ({@link ChunkSinkContractTest}, its fence being the cursor row's token checked in the chunk's transaction), and a
 * cursor claimed twice under one token.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class PostgresSinkTest extends ChunkSinkContractTest {

    @Inject
    PostgresNotificationFanOut fanOut;

    @Inject
    PostgresCursors cursors;

    @Inject
    ChunkedProcessors processors;

    @PostgresTestResource.InjectPostgres
    NotificationRows rows;

    @Test
    void underATokenHandedOutTwiceOnlyTheAttemptThatClaimedTheCursorAdvancesIt() throws Exception {
        // Redis lost the activation of attempt B and handed its token to attempt C, which claimed the cursor after B.
        String jobId = "attempts-" + System.nanoTime();
        ConnectionGuard guard = new ConnectionGuard();
        assertThat(cursors.claim(jobId, 5, "attempt-B", guard)).hasValue(Cursor.START);
        assertThat(cursors.claim(jobId, 5, "attempt-C", guard)).as("the later activation takes the cursor")
                .hasValue(Cursor.START);
        PostgresChunkedJob<String> oneLetter = oneLetter();

        assertThat(cursors.nextChunk(jobId, 5, Cursor.START, 10, oneLetter, attempt(jobId, 5, "attempt-B"), () -> true,
                guard).status()).as("the forgotten attempt, under the same token").isEqualTo(ChunkOutcome.Status.FENCED);
        assertThat(cursors.nextChunk(jobId, 5, Cursor.START, 10, oneLetter, attempt(jobId, 5, "attempt-C"), () -> true,
                guard).status()).isEqualTo(ChunkOutcome.Status.COMMITTED);
    }

    /**
     * A zombie's chunk holds the cursor row's lock from its fenced advance until it commits: cancelling it (as the
     * worker does once it learns its token went stale) must end that transaction at once, so that the epoch that took
     * the job over can claim the row, and nothing of the chunk stays.
     */
    @Test
    void aCancelledChunkRollsBackAtOnceAndTheNextEpochClaimsTheCursor() throws Exception {
        String jobId = "cancelled-" + System.nanoTime();
        ConnectionGuard zombie = new ConnectionGuard();
        assertThat(cursors.claim(jobId, 5, "attempt-A", zombie)).hasValue(Cursor.START);
        CountDownLatch inTransaction = new CountDownLatch(1);
        CountDownLatch frozen = new CountDownLatch(1);
        CompletableFuture<ChunkOutcome.Status> chunk = CompletableFuture
                .supplyAsync(() -> {
                    try {
                        // Stops between its fenced advance (the row locked) and its commit, as a frozen process does.
                        return cursors.nextChunk(jobId, 5, Cursor.START, 10, oneLetter(), attempt(jobId, 5, "attempt-A"),
                                () -> {
                                    inTransaction.countDown();
                                    frozen.await();
                                    return true;
                                }, zombie).status();
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                });
        assertThat(inTransaction.await(Timeouts.TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        zombie.abort(); // the worker cancels the zombie's attempt
        CompletableFuture<Optional<Cursor>> claim = CompletableFuture
                .supplyAsync(() -> {
                    try {
                        return cursors.claim(jobId, 6, "attempt-B", new ConnectionGuard());
                    } catch (SQLException e) {
                        throw new CompletionException(e);
                    }
                });
        assertThat(claim.get(Timeouts.TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("the next epoch claims the row at once")
                .hasValue(Cursor.START);

        frozen.countDown();
        assertThat(chunk).as("the zombie's chunk fails: its connection is gone").failsWithin(Timeouts.TIMEOUT);
        assertThat(cursors.read(jobId)).hasValue(Cursor.START);
        assertThat(rows.cursorToken(jobId)).isEqualTo(6);
    }

    @Override
    protected FanOutRows rows() {
        return rows;
    }

    @Override
    protected JobProcessor fanOut(ReadGate gate) {
        return processors.postgres(new Gated(fanOut, gate));
    }

    @Override
    protected Cursor cursor(String channel, String jobId) {
        try {
            return cursors.read(jobId).orElse(Cursor.START);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected long cursorToken(String channel, String jobId) {
        return rows.cursorToken(jobId);
    }

    /** @return a job of one item, {@code a}, that writes nothing */
    private static PostgresChunkedJob<String> oneLetter() {
        return new PostgresChunkedJob<>() {
            @Override
            public String queue() {
                return "attempts";
            }

            @Override
            public ChunkPlan plan(JobContext job) {
                return null;
            }

            @Override
            public String cursorAfter(String item) {
                return item;
            }

            @Override
            public long total(Connection connection, JobContext job) {
                return 1;
            }

            @Override
            public List<String> read(Connection transaction, JobContext job, String cursor, int size) {
                return cursor.isEmpty() ? List.of("a") : List.of();
            }

            @Override
            public long write(Connection transaction, JobContext job, List<String> chunk) {
                return 0;
            }
        };
    }

    /** @return a job context that knows its job, token and attempt, and nothing else */
    private static JobContext attempt(String jobId, long token, String attemptId) {
        return (JobContext) java.lang.reflect.Proxy.newProxyInstance(JobContext.class.getClassLoader(),
                new Class<?>[] {JobContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "jobId" -> jobId;
                    case "fencingToken" -> token;
                    case "attemptId" -> attemptId;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** The fan-out, its reads passing through a {@link ReadGate}; a held read blocks its (worker) thread. */
    private static final class Gated extends ReadGate.GatedJob<PostgresChunkedJob<String>>
            implements PostgresChunkedJob<String> {

        Gated(PostgresChunkedJob<String> delegate, ReadGate gate) {
            super(delegate, gate);
        }

        @Override
        public long total(Connection connection, JobContext job) throws SQLException {
            return delegate.total(connection, job);
        }

        @Override
        public List<String> read(Connection transaction, JobContext job, String cursor, int size) throws SQLException {
            pass(gate.beforeRead(job, cursor));
            List<String> chunk = delegate.read(transaction, job, cursor, size);
            pass(gate.afterRead(job, cursor));
            return chunk;
        }

        @Override
        public long write(Connection transaction, JobContext job, List<String> chunk) throws SQLException {
            return delegate.write(transaction, job, chunk);
        }

        private static void pass(CompletionStage<Void> gate) throws SQLException {
            try {
                gate.toCompletableFuture().get(Timeouts.FAN_OUT_END.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while held", e);
            } catch (ExecutionException | TimeoutException e) {
                throw new SQLException("held too long", e);
            }
        }
    }
}

package dev.fencedqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;

import org.junit.jupiter.api.Test;

/** What a log line or a failed reason says of a failure: never {@code null}, never a JVM message that quotes code. */
class FailuresTest {

    @Test
    void namesAFailureWithoutAMessageInsteadOfPrintingNull() {
        // The worker's marker wait timed out with Mutiny's TimeoutException, which has no message: the log line ended
        // in "null".
        assertThat(Failures.describe(new io.smallrye.mutiny.TimeoutException())).isEqualTo("timed out");
        assertThat(Failures.describe(new ClosedChannelException())).isEqualTo("connection closed");
        assertThat(Failures.describe(new IllegalStateException())).isEqualTo("illegal state");
        assertThat(Failures.describe(new IOException((String) null))).isEqualTo("io");
        assertThat(Failures.describe(new RuntimeException(" "))).isEqualTo("runtime");
        assertThat(Failures.describe(null)).isEqualTo("unknown failure");
    }

    @Test
    void givesTheFirstMessageAmongTheCausesOfAFailureWithoutOne() {
        Throwable wrapped = new RuntimeException(new IllegalStateException(new IOException("connection reset")));
        // RuntimeException(cause) takes the cause's toString() as its message: a class name. Build one without it.
        Throwable bare = new io.smallrye.mutiny.CompositeException(new IOException((String) null),
                new IOException("connection reset"));
        assertThat(Failures.describe(wrapped)).doesNotContain("null");
        Throwable timeout = new java.util.concurrent.TimeoutException();
        timeout.initCause(new IOException("no reply within 5s"));
        assertThat(Failures.describe(timeout)).isEqualTo("timed out: no reply within 5s");
        assertThat(Failures.describe(bare)).isNotBlank().doesNotContain("null");
    }

    @Test
    void keepsAFailuresOwnMessage() {
        assertThat(Failures.describe(new IllegalStateException("upstream broke"))).isEqualTo("upstream broke");
        assertThat(Failures.reason(new IllegalStateException("upstream broke"))).isEqualTo("upstream broke");
    }

    @Test
    void aFailedReasonNeverQuotesTheCodeOfABug() {
        NullPointerException npe = new NullPointerException("Cannot invoke \"dev.fencedqueue.research.ResearchRequest"
                + ".query()\" because \"request\" is null");
        assertThat(Failures.reason(npe)).isEqualTo("an internal error of the job's processor (NullPointerException)");
        assertThat(Failures.reason(new ClassCastException("class java.lang.String cannot be cast")))
                .doesNotContain("java.lang");
    }
}

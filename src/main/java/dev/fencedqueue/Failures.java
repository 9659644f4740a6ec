package dev.fencedqueue;

import java.util.Locale;
import java.util.Map;

/**
 * Says what a failure was, in words fit for a log line, a job's {@code failedReason} or an error message: never
 * {@code null}, never blank. Many failures carry no message (a Mutiny {@code TimeoutException}, a
 * {@code NullPointerException} without helpful messages, a closed channel); printing {@code getMessage()} then ends a
 * line with {@code null}. Every place that prints a throwable's message goes through {@link #describe}.
 */
public final class Failures {

    /** Most causes looked at for a message (a cause chain can loop). */
    private static final int MAX_CAUSES = 8;

    /** Product words for failures that usually come without a message, by class simple name. */
    private static final Map<String, String> WORDS = Map.of(
            "TimeoutException", "timed out",
            "CancellationException", "cancelled",
            "ClosedChannelException", "connection closed",
            "ConnectTimeoutException", "connection timed out",
            "NullPointerException", "an internal error (NullPointerException)",
            "InterruptedException", "interrupted");

    private Failures() {
    }

    /**
     * @param failure a failure, may be {@code null}
     * @return its message when it has one; else what it is (its class in words: {@code timed out},
     *         {@code connection closed}, {@code illegal state}) followed by the first message among its causes
     *         ({@code timed out: no reply within 5s}); {@code "unknown failure"} for {@code null}. Never {@code null} or
     *         blank
     */
    public static String describe(Throwable failure) {
        if (failure == null) {
            return "unknown failure";
        }
        String own = text(failure.getMessage());
        if (own != null) {
            return own;
        }
        String what = words(failure);
        Throwable cause = failure.getCause();
        for (int i = 0; cause != null && cause != failure && i < MAX_CAUSES; i++, cause = cause.getCause()) {
            String message = text(cause.getMessage());
            if (message != null) {
                return what + ": " + message;
            }
        }
        return what;
    }

    /**
     * What a failed attempt's {@code failedReason} says, shown to users in the console and on the research page: as
     * {@link #describe}, except that a failure the JVM raises for a bug ({@code NullPointerException},
     * {@code ClassCastException}, an index out of bounds, an arithmetic error) never shows its message, which quotes
     * the code ({@code Cannot invoke "...query()" because "request" is null}), only that it was an internal error.
     *
     * @param failure why the attempt failed, may be {@code null}
     * @return the reason, never {@code null} or blank
     */
    public static String reason(Throwable failure) {
        if (failure instanceof NullPointerException || failure instanceof ClassCastException
                || failure instanceof IndexOutOfBoundsException || failure instanceof ArithmeticException
                || failure instanceof ArrayStoreException || failure instanceof NegativeArraySizeException) {
            return "an internal error of the job's processor (" + failure.getClass().getSimpleName() + ")";
        }
        return describe(failure);
    }

    /** @return the failure's kind in words: a known one's, else its class's simple name split into lower-case words */
    private static String words(Throwable failure) {
        String name = failure.getClass().getSimpleName();
        if (name.isEmpty()) {
            name = failure.getClass().getName().substring(failure.getClass().getName().lastIndexOf('.') + 1);
        }
        String known = WORDS.get(name);
        if (known != null) {
            return known;
        }
        String base = name.replaceFirst("(Exception|Error|Throwable)$", "");
        if (base.isEmpty()) {
            return "unknown failure (" + name + ")";
        }
        return base.replaceAll("([a-z0-9])([A-Z])", "$1 $2").replaceAll("([A-Z]+)([A-Z][a-z])", "$1 $2")
                .toLowerCase(Locale.ROOT);
    }

    private static String text(String message) {
        return message == null || message.isBlank() || message.equals("null") ? null : message;
    }
}

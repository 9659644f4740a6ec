package dev.fencedqueue.events;

import java.util.regex.Pattern;

/** Redis stream entry ids ({@code <ms>-<seq>}): parsing and ordering. */
public final class StreamIds {

    /** The id before every entry of a stream: reading after it reads from the start. */
    public static final String START = "0-0";

    private static final Pattern ID = Pattern.compile("\\d{1,19}-\\d{1,19}");

    private StreamIds() {
    }

    /**
     * @param id a candidate stream entry id, may be {@code null}
     * @return whether it is a complete entry id such as {@code 1700000000000-0}
     */
    public static boolean isValid(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /**
     * Compares two valid entry ids by their position in a stream.
     *
     * @return negative, zero or positive as {@code a} is before, equal to or after {@code b}
     */
    public static int compare(String a, String b) {
        int dashA = a.indexOf('-');
        int dashB = b.indexOf('-');
        int byMillis = Long.compareUnsigned(Long.parseUnsignedLong(a, 0, dashA, 10), Long.parseUnsignedLong(b, 0, dashB, 10));
        if (byMillis != 0) {
            return byMillis;
        }
        return Long.compareUnsigned(Long.parseUnsignedLong(a, dashA + 1, a.length(), 10),
                Long.parseUnsignedLong(b, dashB + 1, b.length(), 10));
    }

    /** @return the time part of a valid entry id, ms since the epoch */
    public static long millis(String id) {
        return Long.parseLong(id, 0, id.indexOf('-'), 10);
    }
}

package dev.fencedqueue.redis;

/** The hash tags of Redis Cluster keys, which decide the slot a key lives in. */
public final class HashTags {

    private HashTags() {
    }

    /**
     * The part of a key Redis Cluster hashes (the Redis Cluster specification, "hash tags"): what lies between
     * the first {@code {} and the first {@code }} after it, when that is not empty; else the whole key.
     *
     * @param key a key, not {@code null}
     * @return its hash tag
     */
    public static String of(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                return key.substring(open + 1, close);
            }
        }
        return key;
    }

    /**
     * Where a key's hash tag starts, without copying it (for checks on every command).
     *
     * @param key a key, not {@code null}
     * @return the index of the tag's first character, or -1 when the key has no hash tag (then Redis Cluster hashes
     *         the whole key)
     */
    static int open(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                return open + 1;
            }
        }
        return -1;
    }

    /**
     * @return whether two keys that carry hash tags ({@link #open} not -1) carry the same one; what
     *         {@code of(a).equals(of(b))} says, without copying
     */
    static boolean sameTag(String a, int aOpen, String b, int bOpen) {
        int length = a.indexOf('}', aOpen) - aOpen;
        return b.indexOf('}', bOpen) - bOpen == length && a.regionMatches(aOpen, b, bOpen, length);
    }
}

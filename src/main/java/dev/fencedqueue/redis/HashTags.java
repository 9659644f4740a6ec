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
}

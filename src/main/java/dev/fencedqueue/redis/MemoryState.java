package dev.fencedqueue.redis;

/**
 * What Redis says of its memory ({@code INFO memory}).
 *
 * @param usedMemory {@code used_memory}: the bytes Redis has allocated for its data, 0 or more
 * @param maxMemory {@code maxmemory}: the bytes it may use before it evicts or refuses writes; 0 when unlimited
 * @param policy {@code maxmemory_policy}: what Redis does at {@code maxmemory} ({@code noeviction} refuses writes;
 *        every other policy deletes keys), never {@code null}
 */
public record MemoryState(long usedMemory, long maxMemory, String policy) {

    /** The only policy under which Redis never deletes a key on its own. */
    public static final String NO_EVICTION = "noeviction";

    /**
     * @param info the text of {@code INFO memory}: {@code name:value} lines
     * @return the state it says; a field it lacks is 0, or {@code noeviction} for the policy (a Redis that does not
     *         report one does not evict)
     */
    static MemoryState of(String info) {
        long used = 0;
        long max = 0;
        String policy = NO_EVICTION;
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String value = line.substring(colon + 1).trim();
            switch (line.substring(0, colon)) {
                case "used_memory" -> used = Long.parseLong(value);
                case "maxmemory" -> max = Long.parseLong(value);
                case "maxmemory_policy" -> policy = value;
                default -> {
                }
            }
        }
        return new MemoryState(used, max, policy);
    }

    /** @return whether Redis may delete keys when full: any policy but {@code noeviction} */
    public boolean evicts() {
        return !NO_EVICTION.equals(policy);
    }

    /** @return {@code used_memory / maxmemory}, 0 when {@code maxmemory} is unlimited */
    public double usedRatio() {
        return maxMemory > 0 ? (double) usedMemory / maxMemory : 0;
    }
}

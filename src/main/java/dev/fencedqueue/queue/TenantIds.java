package dev.fencedqueue.queue;

import java.util.regex.Pattern;

/**
 * The tenant a job belongs to: who pays for it, under the fair dispatch of a queue shared by many users. A tenant id is
 * 1 to {@value #MAX_LENGTH} characters of {@code A-Z a-z 0-9 . _ ~ - @ :} (a JWT principal such as an e-mail address
 * fits; braces, spaces and slashes do not, so that an id can name a Redis key and a metric label as it is). A job
 * without one belongs to {@value #DEFAULT}, and its hash holds no {@code tenant} field.
 */
public final class TenantIds {

    /** The tenant of a job added without one, and of every job while tenancy is off ({@code fq.tenancy.source}). */
    public static final String DEFAULT = "default";

    /** Longest tenant id, characters: short enough that a job's hash stays compact in Redis (a listpack). */
    public static final int MAX_LENGTH = 64;

    /** What a valid tenant id is, for error messages. */
    public static final String RULE = "1 to " + MAX_LENGTH + " characters of A-Z a-z 0-9 . _ ~ - @ :";

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._~@:-]{1," + MAX_LENGTH + "}");

    private TenantIds() {
    }

    /**
     * @param tenant a tenant id, may be {@code null}
     * @return whether it is a valid tenant id ({@link #RULE})
     */
    public static boolean isValid(String tenant) {
        return tenant != null && VALID.matcher(tenant).matches();
    }

    /**
     * @param tenant a job's tenant as its hash or its options hold it, {@code null} for none
     * @return the tenant, {@value #DEFAULT} for {@code null}
     */
    public static String orDefault(String tenant) {
        return tenant == null ? DEFAULT : tenant;
    }
}

package dev.fencedqueue.api;

/**
 * A research job that belongs to someone else, or a caller without a bearer token while job ownership is on
 * ({@code fq.research.require-owner}) or jobs belong to the token's principal ({@code fq.tenancy.source=principal}):
 * answered 401 (with {@code WWW-Authenticate: Bearer}) or 403.
 */
public final class JobAccessException extends RuntimeException {

    private final int status;

    private JobAccessException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** @return the 401: the request carries no (valid) bearer token */
    static JobAccessException unauthenticated() {
        return new JobAccessException(401, "research jobs belong to their owner here: send a bearer token");
    }

    /** @return the 401: jobs belong to the tenant a bearer token names, and the request carries no (valid) one */
    static JobAccessException tenantless() {
        return new JobAccessException(401, "jobs belong to the tenant your bearer token names here: send one");
    }

    /**
     * @param jobId the job
     * @return the 403: the token's principal is not the job's owner
     */
    static JobAccessException notOwner(String jobId) {
        return new JobAccessException(403, "job `" + jobId + "` belongs to another caller");
    }

    /** @return 401 or 403 */
    public int status() {
        return status;
    }

    /** @return the body's {@code error} code: {@code unauthorized} or {@code forbidden} */
    public String code() {
        return status == 401 ? "unauthorized" : "forbidden";
    }
}

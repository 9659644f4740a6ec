package dev.fencedqueue.api.admin;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A queue's finished jobs in the archive, as the operator API's queue view shows them (included in its counts).
 *
 * @param completed completed jobs in the archive, or absent when it cannot be read
 * @param failed failed and aborted jobs in the archive, or absent when it cannot be read
 * @param unavailable why the archive was not counted (PostgreSQL cannot be read now), or absent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ArchiveCounts(Long completed, Long failed, String unavailable) {

    /** @return the counts of an archive that cannot be read, saying so in the product's words */
    static ArchiveCounts unreadable() {
        return new ArchiveCounts(null, null, "finished jobs are kept in PostgreSQL, which cannot be read now: the "
                + "counts are those of Redis only");
    }
}

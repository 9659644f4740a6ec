package dev.fencedqueue.api.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

import dev.fencedqueue.api.JobStatusView;

/**
 * One job of a page of the operator API's list: the job as {@code GET /research/status} shows it, and whether it was
 * read from the archive.
 *
 * @param job the job
 * @param archived {@code true} when Redis no longer holds the job and it was read from the archive (it ended; no
 *        action applies to it any more), absent ({@code false}) otherwise
 */
public record ListedJob(@JsonUnwrapped JobStatusView job,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean archived) {
}

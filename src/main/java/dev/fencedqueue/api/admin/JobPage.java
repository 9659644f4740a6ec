package dev.fencedqueue.api.admin;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A page of the jobs of one state ({@code GET /admin/queues/{queue}/jobs}).
 *
 * @param queue the queue name
 * @param state the state listed
 * @param start index of the first job of the page, from 0
 * @param count the page size asked for
 * @param total how many jobs are in that state now; for {@code completed} and {@code failed} those Redis holds and
 *        those the archive holds together
 * @param archived for {@code completed} and {@code failed} while the archive is on: how many of {@code total} are in the
 *        archive (the count may be a few seconds old); absent otherwise
 * @param jobs the jobs of the page: waiting jobs in the order they will run, delayed ones by due time,
 *        prioritized ones by priority, completed and failed ones newest first: those Redis holds, then the archived
 *        ones (older)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobPage(String queue, String state, int start, int count, long total, Long archived,
        List<ListedJob> jobs) {
}

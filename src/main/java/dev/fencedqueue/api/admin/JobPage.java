package dev.fencedqueue.api.admin;

import java.util.List;

import dev.fencedqueue.api.JobStatusView;

/**
 * A page of the jobs of one state ({@code GET /admin/queues/{queue}/jobs}).
 *
 * @param queue the queue name
 * @param state the state listed
 * @param start index of the first job of the page, from 0
 * @param count the page size asked for
 * @param total how many jobs are in that state now
 * @param jobs the jobs of the page: waiting jobs in the order they will run, delayed ones by due time,
 *        prioritized ones by priority, completed and failed ones newest first
 */
public record JobPage(String queue, String state, int start, int count, long total, List<JobStatusView> jobs) {
}

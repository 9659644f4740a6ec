package dev.fencedqueue.archive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.fencedqueue.queue.ArchivedJob;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * The Redis side of the archive: which finished jobs of a queue are due to move, what each one is (every key of it),
 * and dropping it once the archive holds it ({@code dropArchivedJob.lua}).
 */
final class FinishedJobs {

    private static final Set<String> FINISHED = Set.of("completed", "failed", "aborted");

    private final SharedConnection redis;
    private final LuaScripts scripts;

    FinishedJobs(SharedConnection redis, LuaScripts scripts) {
        this.redis = redis;
        this.scripts = scripts;
    }

    /**
     * @param keys the queue
     * @param graceMillis how long a job stays after it finished, ms
     * @param limit the most ids to answer
     * @return ids of jobs of the completed and failed sets that finished at least {@code graceMillis} ago on the
     *         Redis clock, oldest first per set, at most {@code limit}
     */
    Uni<List<String>> due(QueueKeys keys, long graceMillis, int limit) {
        return redis.send(Request.cmd(Command.TIME)).chain(time -> {
            long now = time.get(0).toLong() * 1000 + time.get(1).toLong() / 1000;
            String until = Long.toString(now - graceMillis);
            Uni<Response> completed = redis.send(Request.cmd(Command.ZRANGEBYSCORE).arg(keys.completed()).arg("-inf")
                    .arg(until).arg("LIMIT").arg(0).arg(limit));
            Uni<Response> failed = redis.send(Request.cmd(Command.ZRANGEBYSCORE).arg(keys.failed()).arg("-inf")
                    .arg(until).arg("LIMIT").arg(0).arg(limit));
            return Uni.combine().all().unis(completed, failed).asTuple().map(both -> {
                List<String> ids = new ArrayList<>();
                Replies.elements(both.getItem1()).forEach(id -> ids.add(id.toString()));
                Replies.elements(both.getItem2()).forEach(id -> ids.add(id.toString()));
                return ids.size() > limit ? ids.subList(0, limit) : ids;
            });
        });
    }

    /**
     * @param keys the job's queue
     * @param jobId the job id
     * @return every key of the job as Redis holds it now, or empty when it is gone or not finished
     */
    Uni<Optional<ArchivedJob>> read(QueueKeys keys, String jobId) {
        Uni<Response> hash = redis.send(Request.cmd(Command.HGETALL).arg(keys.job(jobId)));
        Uni<Response> events = redis.send(Request.cmd(Command.XRANGE).arg(keys.events(jobId)).arg("-").arg("+"));
        Uni<Response> children = redis.send(Request.cmd(Command.SMEMBERS).arg(keys.children(jobId)));
        Uni<Response> processed = redis.send(Request.cmd(Command.HGETALL).arg(keys.processed(jobId)));
        Uni<Response> failed = redis.send(Request.cmd(Command.HGETALL).arg(keys.failedChildren(jobId)));
        return Uni.combine().all().unis(hash, events, children, processed, failed).asTuple().map(all -> {
            Map<String, String> fields = Replies.toStringMap(all.getItem1());
            String finishedOn = fields.get("finishedOn");
            if (!FINISHED.contains(fields.get("state")) || finishedOn == null) {
                return Optional.empty();
            }
            List<ArchivedJob.StreamEntry> entries = new ArrayList<>();
            for (Response entry : Replies.elements(all.getItem2())) {
                entries.add(new ArchivedJob.StreamEntry(entry.get(0).toString(), Replies.toStringMap(entry.get(1))));
            }
            List<String> childKeys = new ArrayList<>();
            Replies.elements(all.getItem3()).forEach(key -> childKeys.add(key.toString()));
            return Optional.of(new ArchivedJob(keys.queue(), jobId, Long.parseLong(finishedOn), fields,
                    Replies.toStringMap(all.getItem4()), Replies.toStringMap(all.getItem5()), childKeys.stream()
                            .sorted().toList(), entries));
        });
    }

    /**
     * Drops a job the archive holds.
     *
     * @param keys the job's queue
     * @param job the job as archived
     * @return 1 dropped, 0 left alone (it is not that finishing any more), -1 gone already
     */
    Uni<Long> drop(QueueKeys keys, ArchivedJob job) {
        return scripts.run(new DropArchivedJobArgs(keys, job.jobId(), job.hash().get("finishedOn")))
                .map(Response::toLong);
    }

    /**
     * Takes the id of a job that is gone out of the completed and failed sets (a job that is there is left alone).
     *
     * @param keys the queue
     * @param jobId the job id
     * @return -1 when the job was gone, 0 when it is there
     */
    Uni<Long> forget(QueueKeys keys, String jobId) {
        return scripts.run(new DropArchivedJobArgs(keys, jobId, "")).map(Response::toLong);
    }
}

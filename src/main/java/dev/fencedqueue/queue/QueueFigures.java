package dev.fencedqueue.queue;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The key figures of a queue that its counts do not give, read from Redis by its clock, the same for every instance:
 * how long its longest-waiting ready job has waited, how far behind the move of its finished jobs to the archive is,
 * and how many jobs ended within a recent window. Read by the Prometheus gauges and the operator console. Each read is
 * a few commands; nothing here scans the queue.
 */
@ApplicationScoped
public class QueueFigures {

    private final LuaScripts scripts;
    private final SharedConnection redis;

    /**
     * @param scripts the script registry, not {@code null}
     * @param redis the shared connection, not {@code null}
     */
    public QueueFigures(LuaScripts scripts, SharedConnection redis) {
        this.scripts = scripts;
        this.redis = redis;
    }

    /**
     * @param keys the queue's keys, must not be {@code null}
     * @return seconds since the longest-waiting ready job became ready (the oldest of the wait list's next job and the
     *         first prioritized one: since it was added, or since its delay ended), by the Redis clock; 0 when none
     *         waits; fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable
     */
    public Uni<Double> oldestWaitingAge(QueueKeys keys) {
        Uni<Response> oldest = scripts.run(ReadyJobsArgs.of(keys, "oldest"));
        Uni<Response> time = redis.send(Request.cmd(Command.TIME));
        return Uni.combine().all().unis(oldest, time).asTuple().map(read -> {
            long since = read.getItem1().toLong();
            return since < 0 ? 0.0 : Math.max(0, millis(read.getItem2()) - since) / 1000.0;
        });
    }

    /**
     * How far behind the move of a queue's finished jobs to the archive is: seconds since the oldest finished job still
     * in Redis became due to move (its finish time plus {@code grace}), by the Redis clock; 0 when none is due. While the
     * archive is on, the completed and failed sets hold exactly the finished jobs not moved yet (retention keeps them
     * until the archive has them, and the move takes each out), so their first members are the oldest.
     *
     * @param keys the queue's keys, must not be {@code null}
     * @param grace how long a finished job stays in Redis before it is due to move ({@code fq.archive.grace}), not
     *        {@code null}
     * @return the lag, s; fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable
     */
    public Uni<Double> archiveLag(QueueKeys keys, Duration grace) {
        Uni<Response> completed = redis.send(Request.cmd(Command.ZRANGE).arg(keys.completed()).arg(0).arg(0)
                .arg("WITHSCORES"));
        Uni<Response> failed = redis.send(Request.cmd(Command.ZRANGE).arg(keys.failed()).arg(0).arg(0)
                .arg("WITHSCORES"));
        Uni<Response> time = redis.send(Request.cmd(Command.TIME));
        return Uni.combine().all().unis(completed, failed, time).asTuple().map(read -> {
            long dueSince = millis(read.getItem3()) - grace.toMillis();
            long oldest = Math.min(firstScore(read.getItem1()), firstScore(read.getItem2()));
            return oldest < dueSince ? (dueSince - oldest) / 1000.0 : 0.0;
        });
    }

    /** @return the score of a one-member {@code ZRANGE ... WITHSCORES} reply (ms), or {@link Long#MAX_VALUE} when empty */
    private static long firstScore(Response reply) {
        List<Response> members = Replies.elements(reply);
        return members.isEmpty() ? Long.MAX_VALUE : (long) Double.parseDouble(members.get(0).get(1).toString());
    }

    /**
     * How many jobs ended within a window up to now (the throughput a console shows), counted in the completed and
     * failed sets by their finish time. A job its retention removed at once (a {@code removeOnComplete} that keeps
     * none) is not in them, so not counted.
     *
     * @param keys the queue's keys, must not be {@code null}
     * @param window how far back, must be positive
     * @return the jobs that completed and that failed (aborted included) within the window; fails with
     *         {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable
     */
    public Uni<Ended> endedWithin(QueueKeys keys, Duration window) {
        return redis.send(Request.cmd(Command.TIME)).chain(time -> {
            String since = "(" + (millis(time) - window.toMillis());
            Uni<Response> completed = redis.send(Request.cmd(Command.ZCOUNT).arg(keys.completed()).arg(since)
                    .arg("+inf"));
            Uni<Response> failed = redis.send(Request.cmd(Command.ZCOUNT).arg(keys.failed()).arg(since)
                    .arg("+inf"));
            return Uni.combine().all().unis(completed, failed).asTuple()
                    .map(counts -> new Ended(counts.getItem1().toLong(), counts.getItem2().toLong()));
        });
    }

    /**
     * Jobs that ended within a window.
     *
     * @param completed jobs that completed
     * @param failed jobs that failed for good or were aborted
     */
    public record Ended(long completed, long failed) {
    }

    private static long millis(Response time) {
        return time.get(0).toLong() * 1000 + time.get(1).toLong() / 1000;
    }
}

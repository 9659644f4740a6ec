package dev.fencedqueue.bench;

import java.util.List;
import java.util.UUID;

import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;

/**
 * The Redis ceilings measured in the same run as the figures, through the same shared connection and
 * Vert.x client (1,000 commands in flight): {@code PING}, {@code XADD} of a job-event-sized entry, and
 * {@code EVALSHA} of the fenced append ({@code appendEvent}, as a progress event: token check, last
 * progress, queue event, job stream entry).
 */
final class RedisCeiling {

    /** Commands in flight. */
    static final int WINDOW = 1000;

    /** A fencing token of the size the service hands out (the Redis clock in ms). */
    /** The attempt's lock token, recorded in the job hash as at activation, so that the append checks it too. */
    private static final String LOCK_TOKEN = "ceiling:1";
    private static final String TOKEN = "1795000000000";

    private static final String DATA = "{\"status\":\"progress\",\"fencingToken\":" + TOKEN
            + ",\"workerId\":\"bench-worker\",\"percent\":50,\"message\":\"event 12345\"}";

    private RedisCeiling() {
    }

    /** @return pipelined {@code PING}s per second */
    static double ping(BenchContext bench, int count) {
        return count * 1e9 / Pipeline.run(count, WINDOW, i -> bench.redis().send(Request.cmd(Command.PING)));
    }

    /** @return pipelined {@code XADD}s per second (one stream, {@code MAXLEN ~ 10000}) */
    static double xadd(BenchContext bench, int count) {
        String key = "bench:{ceiling}:" + UUID.randomUUID();
        double perSecond = count * 1e9 / Pipeline.run(count, WINDOW, i -> bench.redis().send(Request.cmd(Command.XADD)
                .arg(key).arg("MAXLEN").arg("~").arg(10_000).arg("*").arg("type").arg("progress")
                .arg("token").arg(TOKEN)
                .arg("data").arg(DATA)));
        bench.redis().send(Request.cmd(Command.DEL).arg(key)).await().atMost(BenchContext.TIMEOUT);
        return perSecond;
    }

    /** @return pipelined {@code EVALSHA appendEvent} calls per second, on one active job with fencing token TOKEN */
    static double appendEvent(BenchContext bench, int count) {
        JobQueue queue = bench.freshQueue("ceiling");
        QueueKeys keys = queue.keys();
        String jobId = "1";
        bench.redis().send(Request.cmd(Command.HSET).arg(keys.job(jobId)).arg("state").arg("active").arg("events").arg(1)
                .arg("lockToken").arg(LOCK_TOKEN).arg("fencingToken").arg(TOKEN))
                .await().atMost(BenchContext.TIMEOUT);
        List<String> scriptKeys = List.of(keys.job(jobId), keys.events(jobId), keys.events());
        List<String> args = List.of(TOKEN, "progress", DATA, "10000", "1",
                "{\"percent\":50,\"message\":\"event 12345\"}", jobId, "10000", LOCK_TOKEN);
        double perSecond = count * 1e9 / Pipeline.run(count, WINDOW,
                i -> bench.scripts().run(LuaScript.APPEND_EVENT, scriptKeys, args));
        bench.redis().send(Request.cmd(Command.DEL).arg(keys.job(jobId)).arg(keys.events(jobId))
                .arg(keys.events())).await().atMost(BenchContext.TIMEOUT);
        return perSecond;
    }
}

package dev.fencedqueue.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.smallrye.mutiny.Uni;
import io.vertx.core.AsyncResult;
import io.vertx.core.Handler;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Registry of the queue's Lua scripts: reads each file once (inlining its {@code --- @include "name"} lines from
 * {@code lua/includes/}, recursively and each once: see {@link LuaSource}), computes its SHA1 and runs it with
 * {@code EVALSHA}, falling back to {@code EVAL} (which also caches the script in Redis) when Redis answers
 * {@code NOSCRIPT}, for example after a restart.
 */
@ApplicationScoped
public class LuaScripts {

    private final SharedConnection connection;
    private final RedisMemory memory;
    private final Map<LuaScript, Source> sources = new EnumMap<>(LuaScript.class);

    public LuaScripts(SharedConnection connection, RedisMemory memory) {
        this.connection = connection;
        this.memory = memory;
        for (LuaScript script : LuaScript.values()) {
            String text = LuaSource.resolve(script.resource());
            sources.put(script, new Source(text, sha1(text)));
        }
        connection.onConnect(this::load);
    }

    /**
     * Runs a script.
     *
     * @param script the script, must not be {@code null}
     * @param keys its KEYS, exactly {@link LuaScript#keyCount()} of them (at least one for a variadic script)
     * @param args its ARGV
     * @return the script's reply; fails with {@link RedisUnavailableException} when Redis is unreachable
     * @throws IllegalArgumentException when the number of keys does not match the script, or a key carries no hash
     *         tag or another one than the first key's (see {@link #requireOneSlot})
     */
    public Uni<Response> run(LuaScript script, List<String> keys, List<String> args) {
        requireKeys(script, keys);
        return runWith(script, keys, args, connection::send);
    }

    /**
     * Runs a script call, as {@link #run(LuaScript, List, List)} does.
     *
     * @param call the script and its arguments, must not be {@code null}
     * @return the script's reply; fails with {@link RedisUnavailableException} when Redis is unreachable
     * @throws IllegalArgumentException as {@link #run(LuaScript, List, List)} does
     */
    public Uni<Response> run(ScriptCall call) {
        return run(call.script(), call.keys(), call.args());
    }

    /**
     * Runs a script call and tells {@code handler} its outcome, as {@link #run(LuaScript, List, List, Handler)} does.
     *
     * @param call the script and its arguments, must not be {@code null}
     * @param handler told once, on an event loop, as {@link #run(LuaScript, List, List, Handler)} says
     * @throws IllegalArgumentException as {@link #run(LuaScript, List, List)} does
     */
    public void run(ScriptCall call, Handler<AsyncResult<Response>> handler) {
        run(call.script(), call.keys(), call.args(), handler);
    }

    /**
     * Runs a script and tells {@code handler} its outcome, as {@link #run(LuaScript, List, List)} does but without a
     * {@code Uni}: for the scripts every job runs.
     *
     * @param script the script, must not be {@code null}
     * @param keys its KEYS, exactly {@link LuaScript#keyCount()} of them (at least one for a variadic script)
     * @param args its ARGV
     * @param handler told once, on an event loop: the script's reply, or {@link RedisUnavailableException} when Redis
     *        is unreachable, or the Redis error
     * @throws IllegalArgumentException when the number of keys does not match the script, or a key carries no hash
     *         tag or another one than the first key's (see {@link #requireOneSlot})
     */
    public void run(LuaScript script, List<String> keys, List<String> args, Handler<AsyncResult<Response>> handler) {
        requireKeys(script, keys);
        Source source = sources.get(script);
        connection.send(request(Command.EVALSHA, source.sha, keys, args), reply -> {
            if (reply.failed() && isNoScript(reply.cause())) {
                connection.send(request(Command.EVAL, source.text, keys, args), handler);
            } else {
                handler.handle(reply);
            }
        });
    }

    private static void requireKeys(LuaScript script, List<String> keys) {
        boolean variadic = script.keyCount() == LuaScript.VARIADIC;
        if (variadic ? keys.isEmpty() : keys.size() != script.keyCount()) {
            throw new IllegalArgumentException("`" + script.scriptName() + "` takes " + script.keyCount()
                    + " keys, got " + keys.size());
        }
        requireOneSlot(script, keys);
    }

    /**
     * Runs a script call whose writes must reach replicas before they count, as {@link SharedConnection#replicated}
     * says ({@code fq.redis.wait.replicas}); otherwise as {@link #run(ScriptCall)}.
     *
     * @param call the script and its arguments, must not be {@code null}
     * @return the script's reply; fails with {@link RedisFullException} when Redis is nearly full
     *         ({@link RedisMemory#requireRoom()}: then the script is not run) or refused a write as out of memory, with
     *         {@link NotReplicatedException} when too few replicas acknowledged it in time, and with
     *         {@link RedisUnavailableException} when Redis is unreachable
     */
    public Uni<Response> runReplicated(ScriptCall call) {
        LuaScript script = call.script();
        List<String> keys = call.keys();
        List<String> args = call.args();
        requireOneSlot(script, keys);
        return Uni.createFrom().deferred(() -> {
            memory.requireRoom();
            return connection.replicated(send -> runWith(script, keys, args, send));
        });
    }

    private Uni<Response> runWith(LuaScript script, List<String> keys, List<String> args,
            Function<Request, Uni<Response>> send) {
        Source source = sources.get(script);
        return send.apply(request(Command.EVALSHA, source.sha, keys, args))
                .onFailure(LuaScripts::isNoScript)
                .recoverWithUni(() -> send.apply(request(Command.EVAL, source.text, keys, args)));
    }

    /**
     * Refuses a script call whose keys would not all land in one Redis Cluster slot: every key must carry a hash tag,
     * the same as the first key's (a queue's keys carry {@code {<queue>}}). The keys a script builds itself come from
     * the queue's key prefix, which carries that tag too, so a script never touches two slots.
     *
     * @param script the script, for the message
     * @param keys its KEYS
     * @throws IllegalArgumentException naming the first key without the tag
     */
    static void requireOneSlot(LuaScript script, List<String> keys) {
        String first = keys.get(0);
        int open = HashTags.open(first);
        for (String key : keys) {
            int keyOpen = HashTags.open(key);
            if (keyOpen < 0 || !HashTags.sameTag(first, open, key, keyOpen)) {
                throw new IllegalArgumentException("`" + script.scriptName() + "`: key `" + key + "` does not carry the "
                        + "hash tag {" + HashTags.of(first) + "} of the call's first key: a script's keys must all hash "
                        + "to one Redis Cluster slot");
            }
        }
    }

    /**
     * Loads every script into Redis's script cache on a connection ({@code SCRIPT LOAD}, pipelined). Run on
     * each new shared connection before any other command, so that calls by SHA do not meet
     * {@code NOSCRIPT} after a Redis restart or failover: such a miss, answered with a fallback to
     * {@code EVAL}, would let a later pipelined call overtake the one that missed (the order of a job's
     * pipelined progress events depends on it). Only a {@code SCRIPT FLUSH} on a live connection can still
     * cause a miss.
     *
     * @param target the connection, must not be {@code null}
     * @return completes once all are loaded; fails when Redis refused one
     */
    Uni<Void> load(RedisConnection target) {
        return Uni.join().all(sources.values().stream()
                .map(source -> target.send(Request.cmd(Command.SCRIPT).arg("LOAD").arg(source.text))).toList())
                .andFailFast().replaceWithVoid();
    }

    /** @return the SHA-1 of a script's resolved text, as {@code EVALSHA} names it (for tests and diagnostics) */
    public String sha(LuaScript script) {
        return sources.get(script).sha;
    }

    /** @return the resolved text of a script (includes expanded), for tests and diagnostics */
    public String text(LuaScript script) {
        return sources.get(script).text;
    }

    private static Request request(Command command, String script, List<String> keys, List<String> args) {
        Request request = Request.cmd(command).arg(script).arg(keys.size());
        keys.forEach(request::arg);
        args.forEach(request::arg);
        return request;
    }

    private static boolean isNoScript(Throwable failure) {
        return String.valueOf(failure.getMessage()).startsWith("NOSCRIPT");
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private record Source(String text, String sha) {
    }
}

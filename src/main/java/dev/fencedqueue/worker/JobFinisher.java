package dev.fencedqueue.worker;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.queue.Backoff;
import dev.fencedqueue.queue.LuaScript;
import dev.fencedqueue.queue.LuaScripts;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.SharedConnection;
import io.smallrye.mutiny.Uni;

/**
 * Writes how an attempt ended: completion ({@code moveToCompleted}) or failure ({@code moveToFailed},
 * which retries after the job's backoff while attempts remain). Both are fenced: only the current epoch's
 * owner can end a job. Writes that fail because Redis is briefly unreachable are retried for up to the
 * lock duration, so a Redis restart does not turn a finished job into a rerun.
 */
final class JobFinisher {

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final ObjectMapper json;
    private final String workerId;
    private final int maxStreamLength;
    private final Duration retryWindow;

    JobFinisher(QueueKeys keys, LuaScripts scripts, ObjectMapper json, String workerId, int maxStreamLength,
            Duration retryWindow) {
        this.keys = keys;
        this.scripts = scripts;
        this.json = json;
        this.workerId = workerId;
        this.maxStreamLength = maxStreamLength;
        this.retryWindow = retryWindow;
    }

    /**
     * @param job the job
     * @param result the processor's result
     * @return the script's code: 0 completed, negative when the worker no longer owns the job
     */
    Uni<Long> complete(ActiveJob job, Object result) {
        String returnValue;
        try {
            returnValue = json.writeValueAsString(result);
        } catch (JsonProcessingException e) {
            return fail(job, new UnrecoverableJobException("result cannot be serialized to JSON: " + e.getOriginalMessage()));
        }
        String event = "{\"status\":\"completed\",\"fencingToken\":" + job.fencingToken() + ",\"workerId\":"
                + quote(workerId) + ",\"result\":" + returnValue + "}";
        String id = job.id();
        return retrying(scripts.run(LuaScript.MOVE_TO_COMPLETED,
                List.of(keys.active(), keys.completed(), keys.job(id), keys.lock(id), keys.fence(id), keys.events(id)),
                List.of(id, job.lockToken, Long.toString(job.fencingToken()), returnValue, event,
                        Integer.toString(maxStreamLength)))
                .map(reply -> reply.toLong()));
    }

    /**
     * @param job the job
     * @param failure why the attempt failed
     * @return the script's code: 1 retried later, 0 failed for good, negative when the worker no longer
     *         owns the job
     */
    Uni<Long> fail(ActiveJob job, Throwable failure) {
        int attemptsMade = job.job.attemptsMade() + 1;
        boolean lastAttempt = failure instanceof UnrecoverableJobException || attemptsMade >= job.job.attempts();
        long retryDelay = lastAttempt ? -1 : backoff(job).delayMillis(attemptsMade);
        String id = job.id();
        return retrying(scripts.run(LuaScript.MOVE_TO_FAILED,
                List.of(keys.active(), keys.waitList(), keys.delayed(), keys.prioritized(), keys.failed(),
                        keys.marker(), keys.meta(), keys.job(id), keys.lock(id), keys.fence(id), keys.events(id)),
                List.of(id, job.lockToken, Long.toString(job.fencingToken()), reason(failure),
                        Long.toString(retryDelay), Integer.toString(maxStreamLength), workerId))
                .map(reply -> reply.toLong()));
    }

    private Uni<Long> retrying(Uni<Long> write) {
        return write.onFailure(SharedConnection::isConnectionFailure).retry()
                .withBackOff(Duration.ofMillis(100), Duration.ofSeconds(2)).expireIn(retryWindow.toMillis());
    }

    private Backoff backoff(ActiveJob job) {
        try {
            JsonNode node = json.readTree(job.job.options()).path("backoff");
            if (node.isMissingNode()) {
                return Backoff.NONE;
            }
            return new Backoff(Backoff.Type.valueOf(node.path("type").asText("fixed").toUpperCase(java.util.Locale.ROOT)),
                    Duration.ofMillis(node.path("delay").asLong(0)), node.path("jitter").asDouble(0));
        } catch (IOException | IllegalArgumentException e) {
            return Backoff.NONE;
        }
    }

    static String reason(Throwable failure) {
        String message = failure.getMessage();
        return message == null || message.isBlank() ? failure.getClass().getSimpleName() : message;
    }

    private String quote(String text) {
        try {
            return json.writeValueAsString(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

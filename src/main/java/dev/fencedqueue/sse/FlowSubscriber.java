package dev.fencedqueue.sse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.events.JobEventData;
import dev.fencedqueue.events.StreamIds;
import dev.fencedqueue.queue.Job;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import org.jboss.logging.Logger;

/**
 * One SSE response following a flow: its root job and the children the root's events announce, each job through its
 * own {@link JobStreamView} (so each with its own epochs, {@code reset}s and {@code resume}s), merged into one stream
 * in the order the events reach this instance. Every event's data carries the job it belongs to ({@code jobId}) and
 * its entry id in that job's stream ({@code eventId}); the SSE {@code id:} names where the reader is in every job's
 * stream ({@link FlowIds}), so that a reconnect resumes them all. The response ends once the root and every child
 * followed have ended; it is answered {@code 204 No Content} instead when a reconnecting reader already had all of it.
 *
 * <p>Every method runs on the event loop of the response's connection ({@link #execute}). The transport (head,
 * keep-alive, bounded backlog, slow-reader disconnect, end) is the one a job's stream has ({@link SseConnection});
 * memory is bounded as for it: a member's live events that arrive before its replay wait ({@link EarlyEvents}), and
 * past {@link SseOptions#bufferLimit()} of them, or of frames the connection has not taken, the reader is disconnected
 * and resumes with {@code Last-Event-ID}.
 */
final class FlowSubscriber {

    private static final Logger LOG = Logger.getLogger(FlowSubscriber.class);

    private final StreamSpan span;
    private final SseConnection connection;
    private final String rootId;
    private final SseOptions options;
    private final Function<JobEvent, List<String>> childrenOf;
    private final BiConsumer<Member, String> follow;
    private final boolean reconnect;
    /** key -> member, the root first. */
    private final Map<String, Member> members = new LinkedHashMap<>();
    /** key -> entry id of the last event shown of that job. */
    private final Map<String, String> positions;

    /**
     * @param response the response, not yet written
     * @param context the current Vert.x context: that of the request's connection
     * @param rootId the flow's root job
     * @param positions key -> entry id of the reader's {@code Last-Event-ID} ({@link FlowIds#parse}), empty for none
     * @param options how the response is written
     * @param childrenOf the ids of the children an event of the root announces (empty for most events)
     * @param follow starts following a member's job from the entry id given ({@code null}: from the start): registers
     *        it with the tailer, then reads and hands over its replay ({@link Member#start})
     * @param span the reader's span (in the root job's trace), ended with the stream; it counts every job's events
     */
    FlowSubscriber(HttpServerResponse response, Context context, String rootId, Map<String, String> positions,
            SseOptions options, Function<JobEvent, List<String>> childrenOf, BiConsumer<Member, String> follow,
            StreamSpan span) {
        this.span = span;
        this.options = options;
        this.connection = new SseConnection(response, context, options);
        this.rootId = rootId;
        this.positions = new LinkedHashMap<>(positions);
        this.reconnect = !positions.isEmpty();
        this.childrenOf = childrenOf;
        this.follow = follow;
        connection.span(span);
    }

    /** Runs {@code action} on the connection's event loop. */
    void execute(Runnable action) {
        connection.execute(action);
    }

    /** Follows the root and the children the reader's position names. */
    void start() {
        join(FlowIds.ROOT, rootId);
        for (String key : List.copyOf(positions.keySet())) {
            if (!FlowIds.ROOT.equals(key)) {
                join(key, rootId + ":" + key);
            }
        }
    }

    /**
     * Fails the stream (a job of the flow could not be followed: Redis is down): {@code 503} before the first byte, a
     * reset after it; either way the client reconnects.
     */
    void fail(Throwable failure) {
        if (!connection.finished()) {
            LOG.warnf("a flow's SSE stream failed: %s", failure.toString());
            connection.disconnect();
        }
    }

    /**
     * Follows a job of the flow from the reader's position in it. A job joins the position at once (from its start,
     * {@code 0-0}), so that the next {@code id:} names it: a reader that reconnects after the event that announced it
     * follows it again even when nothing of it was shown yet.
     */
    private void join(String key, String jobId) {
        if (connection.finished() || members.containsKey(key)) {
            return;
        }
        Member member = new Member(key, jobId);
        members.put(key, member);
        String after = positions.putIfAbsent(key, StreamIds.START);
        follow.accept(member, after == null || StreamIds.START.equals(after) ? null : after);
    }

    private void write(Member member, StreamMessage message) {
        if (message.id() != null) {
            positions.put(member.key, message.id());
        }
        String data = JobEventData.inFlow(message.data(), member.jobId, message.id(), options.json());
        String id = message.id() == null ? null : FlowIds.format(positions);
        connection.write(Buffer.buffer(SseFrames.text(new StreamMessage(id, message.event(), data, null))));
    }

    /** Ends the response once every member has ended: with 204 when a reconnecting reader got nothing new. */
    private void endIfDone() {
        Member root = members.get(FlowIds.ROOT);
        if (connection.finished() || !root.ended) {
            return;
        }
        for (Member member : members.values()) {
            if (!member.ended && member.started && !member.exists) {
                member.ended = true; // announced, never added (the root ended before it added its children)
            }
            if (!member.ended) {
                return;
            }
        }
        if (reconnect) {
            connection.endEmpty(); // nothing new was written: 204
        }
        connection.end();
    }

    /** Writes the head once every member known at the start has handed over its replay and the flow goes on. */
    private void replayed() {
        if (members.values().stream().allMatch(member -> member.started)) {
            connection.head();
        }
    }

    /** One job of the flow: its view, and the live events that arrive before its replay. */
    final class Member extends JobStreamSubscriber {

        private final String key;
        private final String jobId;
        private boolean started;
        private boolean exists;
        private boolean ended;

        Member(String key, String jobId) {
            super(FlowSubscriber.this.connection, FlowSubscriber.this.options);
            this.key = key;
            this.jobId = jobId;
        }

        /** @return the member's job id */
        String jobId() {
            return jobId;
        }

        /**
         * @param unregister unregisters the member from the tailer; run when the response finishes (at once if it has)
         */
        void onFinish(Runnable unregister) {
            connection.onFinish(unregister);
        }

        /**
         * Shows the member's replay, then what arrived live meanwhile.
         *
         * @param job the job, or {@code null} when it does not exist (yet: a child announced before it was added)
         * @param clientEpoch as for {@link JobStreamView#start}
         * @param resumeAfter the reader's position in the job's stream, or {@code null}
         * @param replay the job's stream after it
         */
        void start(Job job, long clientEpoch, String resumeAfter, List<JobEvent> replay) {
            if (connection.finished()) {
                return;
            }
            started = true;
            exists = job != null || !replay.isEmpty();
            Iterable<FramedEvent> arrived = early.release();
            if (view.start(job, clientEpoch, resumeAfter, replay)) {
                deliver(arrived);
            }
            replayed();
            endIfDone();
        }

        @Override
        protected void live(FramedEvent event) {
            exists = true;
            super.live(event);
        }

        @Override
        public void keepAlive(long nowNanos, long idleNanos) {
            connection.keepAlive(nowNanos, idleNanos);
        }

        @Override
        public void event(JobEvent event, Buffer frame) {
            if (FlowIds.ROOT.equals(key)) {
                for (String child : childrenOf.apply(event)) {
                    if (child.startsWith(rootId + ":")) {
                        join(child.substring(rootId.length() + 1), child);
                    }
                }
            }
            span.sent(event.type());
            write(this, StreamMessage.of(event));
        }

        @Override
        public void reset(StreamMessage reset) {
            span.reset();
            write(this, reset);
        }

        @Override
        public void end() {
            ended = true;
            endIfDone();
        }
    }
}

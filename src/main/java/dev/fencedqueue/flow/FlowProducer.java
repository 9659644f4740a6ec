package dev.fencedqueue.flow;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.queue.AddJobArgs;
import dev.fencedqueue.queue.AddResult;
import dev.fencedqueue.queue.JobAdder;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.queue.JobKey;
import dev.fencedqueue.queue.JobNotActiveException;
import dev.fencedqueue.queue.JobNotFoundException;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.ParentPolicy;
import dev.fencedqueue.queue.QueueException;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.queue.ScriptErrors;
import dev.fencedqueue.queue.StaleFencingTokenException;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.tracing.Spans;
import dev.fencedqueue.tracing.TraceAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Adds flows (BullMQ's {@code FlowProducer}): a parent together with its children, and the children a running job
 * adds. The whole flow is checked before anything is written, so a bad job refuses it all. Then the parent is written
 * first, in {@code waiting-children}, with every child as a dependency and each child's spec in its queue's
 * pending-children hash, in one script: from then on the flow is accepted whole. Each child is then added in its own
 * queue (maybe another Redis Cluster node) and its spec removed; a crash in between leaves specs that
 * {@link FlowRelay#sweep} finds and adds (adding a child whose id exists adds nothing).
 */
@ApplicationScoped
public class FlowProducer {

    private final Queues queues;
    private final JobAdder adder;
    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final ObjectMapper json;
    private final JobTracing tracing;
    private final int maxQueueEvents;

    /**
     * @param queues the key layouts of a flow's jobs' queues, by name, not {@code null}
     * @param adder adds each job of a flow, not {@code null}
     * @param scripts the script registry, not {@code null}
     * @param redis the shared connection, not {@code null}
     * @param json Jackson, not {@code null}
     * @param tracing the spans of jobs, not {@code null}
     * @param events the queue event stream's bound ({@code fq.events.queue-stream-max-length}), not {@code null}
     */
    public FlowProducer(Queues queues, JobAdder adder, LuaScripts scripts, SharedConnection redis, ObjectMapper json,
            JobTracing tracing, EventsConfig events) {
        this.queues = queues;
        this.adder = adder;
        this.scripts = scripts;
        this.redis = redis;
        this.json = json;
        this.tracing = tracing;
        this.maxQueueEvents = events.queueStreamMaxLength();
    }

    /**
     * Adds a flow: its root, and every child under it, each in its own queue.
     *
     * @param flow the root, not {@code null}; its {@code options.jobId} names it (else {@code flow-<uuid>}), each
     *        child's id is {@code <parentId>:<key>}
     * @return the root's job key with the ids of its children, and whether the root is new (a job of its id that
     *         exists already is left as it is, and nothing of this flow is written: see
     *         {@link AddedFlow#created()}), once every job is added; fails with
     *         {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable (a flow whose root was
     *         written is then finished by the relay)
     * @throws IllegalArgumentException naming the bad field by its path ({@code children[1].options.attempts}); then
     *         nothing is written
     */
    public Uni<AddedFlow> add(FlowJob flow) {
        ObjectNode root = FlowSpecs.root(flow, queues.keyPrefix());
        Span send = tracing.send(root.get("queue").asText(), Context.current(), FlowSpecs.count(root));
        root.put(FlowSpecs.TRACE_PARENT, JobTracing.traceParent(send));
        return Spans.ending(send, write(root, "").map(created -> new AddedFlow(FlowNode.of(root), created)),
                (span, added) -> span.setAttribute(TraceAttributes.FLOW_ROOT, root.get("jobId").asText()));
    }

    /**
     * Adds children to a running job, fenced (the {@code addChildren} script): a zombie run adds nothing, and a later
     * run that adds the same children (same keys) adds none again.
     *
     * @param parent the job's queue
     * @param parentId the job's id
     * @param parentTenant the job's tenant, which children without one take ({@code null} for the default)
     * @param lockToken the run's lock token
     * @param fencingToken the run's fencing token
     * @param children the children, not empty; each id is {@code <parentId>:<key>}
     * @param traceParent the W3C {@code traceparent} of the span that adds them, stored with each child (so that its
     *        attempts join the parent's trace); {@code ""} for none
     * @return how many children were new to the job; fails with the {@link QueueException} of a refused write
     *         ({@link StaleFencingTokenException}, {@link JobNotActiveException}, {@link JobNotFoundException})
     * @throws IllegalArgumentException naming the bad field ({@code children[0].name}); then nothing is written
     */
    public Uni<Integer> addChildren(QueueKeys parent, String parentId, String parentTenant, String lockToken,
            long fencingToken, List<FlowJob> children, String traceParent) {
        String parentKey = parent.job(parentId);
        List<ObjectNode> specs = FlowSpecs.children(parentId, parentKey, parentTenant, children, queues.keyPrefix());
        specs.forEach(spec -> spec.put(FlowSpecs.TRACE_PARENT, traceParent));
        List<String> childKeys = new ArrayList<>(specs.size());
        for (ObjectNode spec : specs) {
            childKeys.add(queues.keys(spec.get("queue").asText()).job(spec.get("jobId").asText()));
        }
        return scripts.run(new AddChildrenArgs(parent, parentId, lockToken, fencingToken, childKeys, specs))
                .map(reply -> {
                    long code = reply.toLong();
                    if (code < 0) {
                        throw ScriptErrors.toException(LuaScript.ADD_CHILDREN, parent.queue(), parentId, code,
                                fencingToken);
                    }
                    return (int) code;
                })
                .call(added -> addPending(parent, childKeys));
    }

    /**
     * Parks a running job until its children ended (the {@code moveToWaitingChildren} script), fenced.
     *
     * @param queue the job's queue
     * @param jobId the job's id
     * @param lockToken the run's lock token
     * @param fencingToken the run's fencing token
     * @return {@code true} when parked, {@code false} when no child is pending (the job stays active); fails with
     *         {@link ChildFailedException} when a child failed the job, and with the {@link QueueException} of a refused
     *         write
     */
    public Uni<Boolean> moveToWaitingChildren(QueueKeys queue, String jobId, String lockToken, long fencingToken) {
        return scripts.run(new MoveToWaitingChildrenArgs(queue, jobId, lockToken, fencingToken, maxQueueEvents))
                .map(reply -> {
                    long code = reply.get(0).toLong();
                    if (code < 0) {
                        throw ScriptErrors.toException(LuaScript.MOVE_TO_WAITING_CHILDREN, queue.queue(), jobId, code,
                                fencingToken);
                    }
                    if (code == 2) {
                        throw new ChildFailedException(reply.get(1).toString());
                    }
                    return code == 1;
                });
    }

    /**
     * Adds the children whose specs still wait in a queue's pending-children hash (after a crash, or a write that
     * failed), each only while it is still a pending dependency of a parent that has not ended, then removes the
     * specs.
     *
     * @param parent the queue of the parents
     * @param childKeys the child job keys to look for
     * @return completes when done
     */
    public Uni<Void> addPending(QueueKeys parent, List<String> childKeys) {
        if (childKeys.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return Uni.join().all(childKeys.stream().map(childKey -> addPending(parent, childKey)).toList())
                .andCollectFailures().replaceWithVoid();
    }

    private Uni<Void> addPending(QueueKeys parent, String childKey) {
        return redis.send(Request.cmd(Command.HGET).arg(parent.pendingChildren()).arg(childKey))
                .chain(stored -> {
                    if (stored == null) {
                        return Uni.createFrom().voidItem();
                    }
                    JsonNode spec = FlowSpecs.parse(json, stored.toString());
                    JobKey parentKey = JobKey.parse(spec.get("parentKey").asText());
                    Request member = Request.cmd(Command.SISMEMBER).arg(parent.dependencies(parentKey.jobId())).arg(childKey);
                    Request state = Request.cmd(Command.HGET).arg(parent.job(parentKey.jobId())).arg("state");
                    return Uni.combine().all().unis(redis.send(member), redis.send(state)).asTuple()
                            .chain(read -> read.getItem1().toInteger() == 1 && read.getItem2() != null
                                    && !JobState.of(read.getItem2().toString()).isTerminal()
                                            ? write(spec, spec.get("parentKey").asText()).replaceWithVoid()
                                            : Uni.createFrom().voidItem())
                            .chain(() -> redis.send(Request.cmd(Command.HDEL).arg(parent.pendingChildren())
                                    .arg(childKey)))
                            .replaceWithVoid();
                });
    }

    /**
     * Writes one job of a flow and, when it has children, the children after it (their specs first go to the
     * pending-children hash with the job, and leave it once all of them are added).
     *
     * @return whether the job was written ({@code false}: a job of its id existed, and was left as it is)
     */
    private Uni<Boolean> write(JsonNode spec, String parentKey) {
        QueueKeys keys = queues.keys(spec.get("queue").asText());
        String jobKey = keys.job(spec.get("jobId").asText());
        List<JsonNode> children = FlowSpecs.childrenOf(spec);
        List<String> pairs = new ArrayList<>(2 * children.size());
        List<String> childKeys = new ArrayList<>(children.size());
        String traceParent = spec.path(FlowSpecs.TRACE_PARENT).asText("");
        for (JsonNode child : children) {
            ((ObjectNode) child).put("parentKey", jobKey).put(FlowSpecs.TRACE_PARENT, traceParent);
            String childKey = queues.keys(child.get("queue").asText()).job(child.get("jobId").asText());
            childKeys.add(childKey);
            pairs.add(childKey);
            pairs.add(child.toString());
        }
        List<String> args = adder.args(keys, spec.get("name").asText(), spec.get("data"), FlowSpecs.options(spec),
                parentKey, ParentPolicy.of(spec.path("policy").asText(null)).value(), "", "", traceParent);
        args.addAll(pairs);
        Uni<AddResult> added = adder.run(new AddJobArgs(keys, args));
        if (children.isEmpty()) {
            return added.map(AddResult::created);
        }
        return added.chain(result -> {
            if (!result.created()) {
                // Written before (the same flow added twice, or a retry): finish what that add may have left.
                return addPending(keys, childKeys).replaceWith(false);
            }
            Request done = Request.cmd(Command.HDEL).arg(keys.pendingChildren());
            childKeys.forEach(done::arg);
            return Uni.join().all(children.stream().map(child -> write(child, jobKey)).toList()).andCollectFailures()
                    .chain(() -> redis.send(done)).replaceWith(true);
        });
    }
}

package dev.fencedqueue.queue.flow;

import java.util.List;

import dev.fencedqueue.queue.QueueContext;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code childEnded-12.lua}: tells a flow's parent, in its own queue, that one of its children ended. ARGV
 * in order: the parent queue's key prefix, the parent's job id, the child's job key, how the child ended, its return
 * value or reason, its parent policy, and the parent queue's job and queue event streams' maximum lengths (entries).
 *
 * @param ctx the parent's queue
 * @param parentId the parent's job id
 * @param childKey the child's job hash key (in its own queue)
 * @param outcome how the child ended: {@code completed}, {@code failed} or {@code aborted}
 * @param value the child's return value (JSON) when it completed, else its reason (text)
 * @param policy what the child's failure does to the parent: {@code fail}, {@code ignore} or {@code remove}
 */
record ChildEndedArgs(QueueContext ctx, String parentId, String childKey, String outcome, String value, String policy)
        implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.CHILD_ENDED;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.job(parentId), keys.dependencies(parentId), keys.processed(parentId),
                keys.failedChildren(parentId), keys.waitList(), keys.prioritized(), keys.marker(), keys.meta(),
                keys.waitingChildren(), keys.failed(), keys.events(parentId), keys.events());
    }

    @Override
    public List<String> args() {
        return List.of(ctx.keys().prefix(), parentId, childKey, outcome, value, policy, ctx.streamLengthArg(),
                ctx.queueEventsArg());
    }
}

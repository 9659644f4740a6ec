package dev.fencedqueue.flow;

import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code childEnded-12.lua}: tells a flow's parent, in its own queue, that one of its children ended. ARGV
 * in order: the parent queue's key prefix, the parent's job id, the child's job key, how the child ended, its return
 * value or reason, its parent policy, and the parent queue's job and queue event streams' maximum lengths (entries).
 *
 * @param parent the parent's queue
 * @param parentId the parent's job id
 * @param childKey the child's job hash key (in its own queue)
 * @param outcome how the child ended: {@code completed}, {@code failed} or {@code aborted}
 * @param value the child's return value (JSON) when it completed, else its reason (text)
 * @param policy what the child's failure does to the parent: {@code fail}, {@code ignore} or {@code remove}
 * @param maxStreamLength the parent queue's job event stream's maximum length, entries
 * @param maxQueueEvents the parent queue's event stream's maximum length, entries
 */
record ChildEndedArgs(QueueKeys parent, String parentId, String childKey, String outcome, String value, String policy,
        int maxStreamLength, int maxQueueEvents) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.CHILD_ENDED;
    }

    @Override
    public List<String> keys() {
        return List.of(parent.job(parentId), parent.dependencies(parentId), parent.processed(parentId),
                parent.failedChildren(parentId), parent.waitList(), parent.prioritized(), parent.marker(),
                parent.meta(), parent.waitingChildren(), parent.failed(), parent.events(parentId), parent.events());
    }

    @Override
    public List<String> args() {
        return List.of(parent.prefix(), parentId, childKey, outcome, value, policy, Integer.toString(maxStreamLength),
                Integer.toString(maxQueueEvents));
    }
}

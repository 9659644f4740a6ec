package dev.fencedqueue.flow;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code addChildren-4.lua}: a running job adds children, fenced. ARGV in order: the run's lock token and
 * fencing token, then two per child: its job key and its spec (JSON).
 *
 * @param parent the job's queue
 * @param parentId the job's id
 * @param lockToken the run's lock token
 * @param fencingToken the run's fencing token
 * @param childKeys each child's job key (in its own queue), in the order of {@code specs}
 * @param specs each child's spec ({@link FlowSpecs#children})
 */
record AddChildrenArgs(QueueKeys parent, String parentId, String lockToken, long fencingToken, List<String> childKeys,
        List<ObjectNode> specs) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.ADD_CHILDREN;
    }

    @Override
    public List<String> keys() {
        return List.of(parent.job(parentId), parent.children(parentId), parent.dependencies(parentId),
                parent.pendingChildren());
    }

    @Override
    public List<String> args() {
        List<String> args = new ArrayList<>(2 + 2 * specs.size());
        Collections.addAll(args, lockToken, Long.toString(fencingToken));
        for (int i = 0; i < specs.size(); i++) {
            Collections.addAll(args, childKeys.get(i), specs.get(i).toString());
        }
        return args;
    }
}

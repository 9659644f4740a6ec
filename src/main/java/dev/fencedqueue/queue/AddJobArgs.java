package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code addJob-9.lua}: the one way a job enters a queue, for {@link JobQueue}'s adds, a flow's jobs
 * ({@code FlowProducer}) and a scheduler's jobs run now; {@code produceTick} runs the same KEYS and ARGV after its own.
 * KEYS: the queue's wait list, delayed and prioritized sets, marker, meta hash, id counter, event stream,
 * waiting-children set and pending-children hash. ARGV: as {@link JobAdder#args} builds them (their order and units in
 * the script's header), then two per child of a flow's job: its job key and its spec.
 *
 * @param queue the queue the job goes to
 * @param args the ARGV ({@link JobAdder#args}, the children's appended when the job has any)
 */
public record AddJobArgs(QueueKeys queue, List<String> args) implements ScriptCall {

    /**
     * The parent policy of a job added without a parent ({@code fail}: what a flow's child does by default), as
     * {@code addJob} stores it.
     */
    public static final String NO_PARENT_POLICY = "fail";

    @Override
    public LuaScript script() {
        return LuaScript.ADD_JOB;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.waitList(), queue.delayed(), queue.prioritized(), queue.marker(), queue.meta(),
                queue.idCounter(), queue.events(), queue.waitingChildren(), queue.pendingChildren());
    }
}

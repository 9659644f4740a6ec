-- Include (inlined by `--- @include`): no KEYS or ARGV of its own; the caller passes keys and values.
-- Records, for a flow, that a child job ended: a notice in the child's own queue ('<prefix>parent-notices', a hash
-- keyed by the child's id) that the service then delivers to the parent's queue (childEnded, FlowRelay in Java).
-- Written by the script that ends the child, so no ending is lost between the two queues, which may live on two
-- Redis Cluster nodes: the notice stays until it is delivered, and delivering it twice changes nothing.
-- parentKey: the child's 'parentKey' field (the parent's job hash key), false when the job has no parent (nothing
-- is written); policy: its 'parentPolicy' field ('fail' | 'ignore' | 'remove', false = 'fail'); outcome:
-- 'completed' | 'failed' | 'aborted'; value: the return value (JSON text) or the reason (text).
local function noteParent(prefix, jobId, parentKey, policy, outcome, value)
    if parentKey then
        redis.call('HSET', prefix .. 'parent-notices', jobId, cjson.encode({parentKey = parentKey,
            policy = policy or 'fail', outcome = outcome, value = value}))
    end
end

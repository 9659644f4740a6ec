package dev.fencedqueue.flow;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.fencedqueue.queue.AddJobArgs;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobAdder;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.ParentPolicy;
import dev.fencedqueue.queue.QueueEvent;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.StaleFencingTokenException;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.UnrecoverableJobException;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Flows: a parent and its children added together, the parent run after them with their results, each failure
 * policy, children in other queues and of children, children added by a running job (fenced), abort of a parent.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class FlowTest extends QueueTestSupport {

    @Inject
    FlowProducer flows;

    @Inject
    FlowRelay relay;

    @Inject
    FlowReader reader;

    @Inject
    JobAdder adder;

    @Inject
    LuaScripts scripts;

    @Inject
    EventsConfig events;

    @Inject
    SharedConnection connection;

    /** A second queue, for children that run elsewhere than their parent. */
    JobQueue other;

    @BeforeEach
    void otherQueue() {
        other = redis.freshQueue();
    }

    @Test
    void runsTheParentOnlyAfterAllChildrenAndGivesItTheirResults() {
        startWorkers();
        FlowJob flow = FlowJob.of(queue.name(), "collect", null).withChildren(List.of(
                FlowJob.of(queue.name(), "leaf", TextNode.valueOf("a")).withKey("a"),
                FlowJob.of(other.name(), "leaf", TextNode.valueOf("b")).withKey("b"),
                FlowJob.of(other.name(), "collect", null).withKey("c").withChildren(List.of(
                        FlowJob.of(queue.name(), "leaf", TextNode.valueOf("c0"))))));

        FlowNode added = flows.add(flow).await().atMost(TIMEOUT).root();

        String root = added.jobId();
        assertThat(added.children()).extracting(FlowNode::jobId).containsExactly(root + ":a", root + ":b", root + ":c");
        assertThat(added.children().get(2).children()).extracting(FlowNode::jobId).containsExactly(root + ":c:0");
        Job parent = awaitJob(root, job -> job.state() == JobState.COMPLETED);
        Job grandchild = redis.job(queue, root + ":c:0");
        Job child = redis.job(other, root + ":c");
        assertThat(grandchild.finishedOn()).as("a child ends before its parent starts").isLessThanOrEqualTo(child.processedOn());
        for (String leaf : List.of(root + ":a", root + ":c:0")) {
            assertThat(redis.job(queue, leaf).finishedOn()).isLessThanOrEqualTo(parent.processedOn());
        }
        assertThat(redis.job(other, root + ":b").finishedOn()).isLessThanOrEqualTo(parent.processedOn());
        assertThat(parent.returnValue()).contains("\"" + queue.keys().job(root + ":a") + "\":\"\\\"a\\\"\"")
                .contains(other.keys().job(root + ":b")).contains(other.keys().job(root + ":c"));
        assertThat(parent.attemptsStarted()).as("the parent ran once").isEqualTo(1);
        assertThat(reader.children(queue.keys(), root).await().atMost(TIMEOUT)).extracting(FlowReader.Child::jobId,
                FlowReader.Child::queue, FlowReader.Child::state).containsExactly(
                        tuple(root + ":a", queue.name(), JobState.COMPLETED),
                        tuple(root + ":b", other.name(), JobState.COMPLETED),
                        tuple(root + ":c", other.name(), JobState.COMPLETED));
        assertThat(redis.job(other, root + ":b").parentKey()).isEqualTo(queue.keys().job(root));
        assertThat(connection.send(Request.cmd(Command.HLEN).arg(queue.keys().pendingChildren())).await()
                .atMost(TIMEOUT).toLong()).as("no spec left behind").isZero();
    }

    @Test
    void refusesTheWholeFlowWhenOneChildIsInvalid() {
        FlowJob flow = FlowJob.of(queue.name(), "collect", null).withOptions(JobOptions.defaults().withJobId("refused"))
                .withChildren(List.of(FlowJob.of(queue.name(), "leaf", null),
                        FlowJob.of(other.name(), " ", null)));

        assertThatThrownBy(() -> flows.add(flow)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("children[1].name");

        assertThat(redis.keys(queue)).as("nothing written").isEmpty();
        assertThat(redis.keys(other)).isEmpty();
    }

    @Test
    void aFailedChildFailsItsParentWithAReasonNamingTheChild() {
        startWorkers();
        FlowNode added = add(FlowJob.of(queue.name(), "collect", null).withChildren(List.of(
                FlowJob.of(queue.name(), "leaf", null).withKey("fine"),
                FlowJob.of(other.name(), "broken", null).withKey("broken"))));

        Job parent = awaitJob(added.jobId(), job -> job.state() == JobState.FAILED);

        assertThat(parent.failedReason()).startsWith("child " + other.keys().job(added.jobId() + ":broken") + " failed: ")
                .endsWith("broken on purpose");
        assertThat(parent.attemptsStarted()).as("the parent never ran").isZero();
        assertThat(redis.terminalEvents(queue, added.jobId())).singleElement()
                .satisfies(event -> assertThat(event.type()).isEqualTo("failed"));
    }

    @Test
    void anIgnoredChildFailureLetsTheParentGoOnAndReadIt() {
        startWorkers();
        FlowNode added = add(FlowJob.of(queue.name(), "report-failures", null).withChildren(List.of(
                FlowJob.of(queue.name(), "leaf", null).withKey("fine"),
                FlowJob.of(other.name(), "broken", null).withKey("broken").withPolicy(ParentPolicy.IGNORE))));

        Job parent = awaitJob(added.jobId(), job -> job.state() == JobState.COMPLETED);

        assertThat(parent.returnValue()).contains(other.keys().job(added.jobId() + ":broken"))
                .contains("broken on purpose");
        assertThat(reader.childrenValues(queue.keys(), added.jobId()).await().atMost(TIMEOUT))
                .containsOnlyKeys(queue.keys().job(added.jobId() + ":fine"));
    }

    @Test
    void aRemovedDependencyLetsTheParentGoOnWithoutIt() {
        startWorkers();
        FlowNode added = add(FlowJob.of(queue.name(), "collect", null).withChildren(List.of(
                FlowJob.of(other.name(), "broken", null).withKey("broken").withPolicy(ParentPolicy.REMOVE))));

        Job parent = awaitJob(added.jobId(), job -> job.state() == JobState.COMPLETED);

        assertThat(parent.returnValue()).isEqualTo("{}");
        assertThat(reader.failedChildren(queue.keys(), added.jobId()).await().atMost(TIMEOUT)).isEmpty();
        assertThat(redis.job(other, added.jobId() + ":broken").state()).isEqualTo(JobState.FAILED);
    }

    @Test
    void abortingAParentAbortsItsRunningChildren() {
        ProbeProcessor held = ProbeProcessor.held(other.name());
        workers.start(held, TestWorkers.options("held").concurrency(2).build());
        FlowNode added = add(FlowJob.of(queue.name(), "collect", null).withChildren(List.of(
                FlowJob.of(other.name(), "slow", null), FlowJob.of(other.name(), "slow", null))));
        await().atMost(TIMEOUT).until(() -> held.started() == 2);

        queue.abort(added.jobId(), "operator").await().atMost(TIMEOUT);

        for (FlowNode child : added.children()) {
            Job aborted = await().atMost(TIMEOUT).until(() -> redis.job(other, child.jobId()),
                    job -> job.state() == JobState.ABORTED);
            assertThat(aborted.failedReason()).isEqualTo("parent " + added.jobId() + " aborted: operator");
        }
        await().atMost(TIMEOUT).until(() -> held.attempts().stream().allMatch(ProbeProcessor.Attempt::isCancelled));
        assertThat(redis.job(queue, added.jobId()).state()).isEqualTo(JobState.ABORTED);
    }

    /**
     * The abort of a parent is one script; its children's aborts follow it. A process that dies in between leaves the
     * abort recorded in {@code parent-aborts}, and the flow sweep of any instance aborts the children then.
     */
    @Test
    void anAbortCutShortByACrashAbortsTheChildrenAtTheNextSweep() {
        ProbeProcessor held = ProbeProcessor.held(other.name());
        workers.start(held, TestWorkers.options("held").concurrency(2).build());
        FlowNode added = add(FlowJob.of(queue.name(), "collect", null).withChildren(List.of(
                FlowJob.of(other.name(), "slow", null), FlowJob.of(other.name(), "slow", null))));
        await().atMost(TIMEOUT).until(() -> held.started() == 2);

        // What JobQueue.abort runs first: the parent's own abort, and nothing after it (the process died there).
        QueueKeys keys = queue.keys();
        String parentId = added.jobId();
        scripts.run(LuaScript.ABORT_JOB, List.of(keys.waitList(), keys.active(), keys.delayed(),
                keys.prioritized(), keys.failed(), keys.job(parentId), keys.events(parentId), keys.events(), keys.marker(),
                keys.meta()), List.of(parentId, "operator", Integer.toString(events.maxStreamLength()),
                keys.revokedChannel(), keys.prefix(), Integer.toString(events.queueStreamMaxLength())))
                .await().atMost(TIMEOUT);
        assertThat(redis.job(queue, parentId).state()).isEqualTo(JobState.ABORTED);
        for (FlowNode child : added.children()) {
            assertThat(redis.job(other, child.jobId()).state()).as("not aborted yet").isEqualTo(JobState.ACTIVE);
        }

        relay.sweep(keys).await().atMost(TIMEOUT);

        for (FlowNode child : added.children()) {
            Job aborted = await().atMost(TIMEOUT).until(() -> redis.job(other, child.jobId()),
                    job -> job.state() == JobState.ABORTED);
            assertThat(aborted.failedReason()).isEqualTo("parent " + parentId + " aborted: operator");
        }
        await().atMost(TIMEOUT).until(() -> held.attempts().stream().allMatch(ProbeProcessor.Attempt::isCancelled));
        assertThat(connection.send(Request.cmd(Command.HLEN).arg(keys.parentAborts())).await().atMost(TIMEOUT)
                .toInteger()).as("the record is gone").isZero();
    }

    @Test
    void aRunningJobAddsChildrenWaitsForThemAndReadsTheirResultsInItsNextEpoch() {
        ProbeProcessor processor = startWorkers();
        String jobId = add(Map.of("other", other.name()), JobOptions.defaults());

        Job planner = awaitJob(jobId, job -> job.state() == JobState.COMPLETED);

        assertThat(planner.returnValue()).contains(queue.keys().job(jobId + ":x")).contains(other.keys().job(jobId + ":y"));
        List<Long> tokens = processor.attempts().stream().filter(a -> a.context().jobId().equals(jobId))
                .map(ProbeProcessor.Attempt::fencingToken).toList();
        assertThat(tokens).as("parked, then run again in a new epoch").hasSize(2);
        assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
        assertThat(planner.attemptsMade()).isEqualTo(1);
        assertThat(redis.job(queue, jobId + ":x").attemptsStarted()).as("added once, run once").isEqualTo(1);
        assertThat(redis.queueEvents(queue)).extracting(QueueEvent::event).contains("waiting-children");
    }

    @Test
    void aZombieParentAddsNoChildrenAndATakeoverAddsNoneAgain() {
        ProbeProcessor heldA = ProbeProcessor.held(queue.name());
        Worker workerA = workers.start(heldA, TestWorkers.options("worker-A").build());
        String jobId = add();
        ProbeProcessor.Attempt first = awaitAttempt(heldA, 0);
        List<FlowJob> children = List.of(FlowJob.of(other.name(), "leaf", null).withKey("k"));
        assertThat(first.context().addChildren(children).await().atMost(TIMEOUT)).isEqualTo(1);

        freeze(workerA);
        ProbeProcessor heldB = ProbeProcessor.held(queue.name());
        workers.start(heldB, TestWorkers.options("worker-B").build());
        ProbeProcessor.Attempt second = awaitAttempt(heldB, 0);

        List<FlowJob> more = List.of(FlowJob.of(other.name(), "leaf", null).withKey("zombie"));
        assertThatThrownBy(() -> first.context().addChildren(more).await().atMost(TIMEOUT))
                .isInstanceOf(StaleFencingTokenException.class);
        assertThat(redis.job(other, jobId + ":zombie")).as("a zombie adds nothing").isNull();
        assertThat(second.context().addChildren(children).await().atMost(TIMEOUT)).as("added before").isZero();
        assertThat(reader.children(queue.keys(), jobId).await().atMost(TIMEOUT)).extracting(FlowReader.Child::jobId)
                .containsExactly(jobId + ":k");
        assertThat(redis.keys(other)).filteredOn(key -> key.endsWith(":job:" + jobId + ":k")).hasSize(1);
    }

    @Test
    void theSweepAddsChildrenThatACrashLeftBehind() {
        // The parent's script ran, then the process died before it added the child in its own queue.
        String parentKey = queue.keys().job("crashed");
        String childKey = other.keys().job("crashed:0");
        String spec = "{\"jobId\":\"crashed:0\",\"queue\":\"" + other.name() + "\",\"name\":\"leaf\",\"data\":null,"
                + "\"options\":{},\"policy\":\"fail\",\"children\":[],\"parentKey\":\"" + parentKey + "\"}";
        List<String> args = adder.args(queue.keys(), "collect", null, JobOptions.defaults().withJobId("crashed"), "",
                ParentPolicy.FAIL.value(), "", "", "");
        args.addAll(List.of(childKey, spec));
        adder.run(new AddJobArgs(queue.keys(), args)).await().atMost(TIMEOUT);
        assertThat(redis.job(queue, "crashed").state()).isEqualTo(JobState.WAITING_CHILDREN);

        startWorkers();

        Job parent = awaitJob("crashed", job -> job.state() == JobState.COMPLETED);
        assertThat(parent.returnValue()).contains(childKey);
        assertThat(redis.job(other, "crashed:0").attemptsStarted()).isEqualTo(1);
    }

    @Test
    void theParentLearnsOfAChildThatFailedByStallingTooOften() {
        workers.start(ProbeProcessor.of(queue.name(), FlowTest::process), TestWorkers.options("main").build());
        ProbeProcessor stuck = ProbeProcessor.held(other.name());
        // No stall allowed: the first one fails the child, in the stalled-job check, which leaves a notice only.
        Worker frozen = workers.start(stuck, TestWorkers.options("frozen")
                .stalledCheck(java.time.Duration.ofMillis(500), 0).build());
        FlowNode added = add(FlowJob.of(queue.name(), "collect", null).withChildren(List.of(
                FlowJob.of(other.name(), "stuck", null))));
        awaitAttempt(stuck, 0);
        freeze(frozen);

        Job parent = awaitJob(added.jobId(), job -> job.state() == JobState.FAILED);

        assertThat(parent.failedReason()).contains("job stalled more than allowable limit");
    }

    /**
     * Starts one worker on each queue: {@code leaf} returns its data, {@code broken} fails for good, {@code collect}
     * returns its children's results, {@code report-failures} the failures it ignored, and any other job adds two
     * children ({@code x} here, {@code y} in the other queue), waits for them and returns their results.
     *
     * @return the processor of the test's queue
     */
    private ProbeProcessor startWorkers() {
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), FlowTest::process);
        workers.start(processor, TestWorkers.options("main").build());
        workers.start(ProbeProcessor.of(other.name(), FlowTest::process), TestWorkers.options("other").build());
        return processor;
    }

    private static Uni<Object> process(JobContext context) {
        return switch (context.job().name()) {
            case "leaf" -> Uni.createFrom().item(context.data(Object.class));
            case "broken" -> Uni.createFrom().failure(new UnrecoverableJobException("broken on purpose"));
            case "collect" -> context.childrenValues().map(values -> (Object) new TreeMap<>(values));
            case "report-failures" -> context.failedChildren().map(values -> (Object) new TreeMap<>(values));
            default -> context.addChildren(List.of(FlowJob.of(context.job().queue(), "leaf", null).withKey("x"),
                    FlowJob.of(otherQueueOf(context), "leaf", null).withKey("y")))
                    .chain(context::moveToWaitingChildren)
                    .chain(context::childrenValues).map(values -> (Object) new TreeMap<>(values));
        };
    }

    private static String otherQueueOf(JobContext context) {
        return (String) context.data(Map.class).get("other");
    }

    private FlowNode add(FlowJob flow) {
        return flows.add(flow).await().atMost(TIMEOUT).root();
    }
}

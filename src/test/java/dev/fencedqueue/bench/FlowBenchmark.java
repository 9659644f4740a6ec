package dev.fencedqueue.bench;

import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.node.IntNode;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.flow.FlowProducer;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What adding a flow costs (not a test: {@code ./mvnw -Pbench test -Dtest=FlowBenchmark}; see BENCHMARKS.md): jobs
 * added per second as flows of 1 parent and 10 children (the children in a second queue), against the same jobs
 * added as 11 plain jobs (1 in the first queue, 10 in the second), with the same number of jobs in flight (50 flows,
 * 550 plain adds), beside pipelined {@code PING}s per second on the same connection (the ceiling). Nobody runs the
 * jobs: this is the producer's side.
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class FlowBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 3);
    private static final int FLOWS = Integer.getInteger("bench.flows", 2_000);
    private static final int CHILDREN = 10;
    private static final int FLOWS_IN_FLIGHT = 50;

    @Inject
    BenchContext bench;

    @Inject
    FlowProducer producer;

    @Test
    void measuresAddingFlowsBesideAddingPlainJobs() {
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("flow_environment", Runtime.getRuntime().availableProcessors(), "cpus",
                "\"flows\": " + FLOWS + ", \"children\": " + CHILDREN + ", \"loadAvg1m\": " + BenchContext.loadAverage());
        round(null, 0, FLOWS / 4);
        for (int run = 1; run <= RUNS; run++) {
            round(report, run, FLOWS);
        }
        report.medians();
    }

    private void round(BenchReport report, int run, int flows) {
        int jobs = flows * (1 + CHILDREN);
        double ping = RedisCeiling.ping(bench, 100_000);
        double flowJobs = jobs * 1e9 / addFlows(flows);
        double plainJobs = jobs * 1e9 / addPlain(flows);
        if (report != null) {
            report.record("flow_ceiling_pings_per_second", ping, "ops/s", run, "");
            report.record("flow_jobs_per_second", flowJobs, "jobs/s", run, "\"shape\": \"1+" + CHILDREN + "\"");
            report.record("flow_plain_jobs_per_second", plainJobs, "jobs/s", run, "\"shape\": \"11 plain\"");
            report.record("flow_ratio_to_plain", flowJobs / plainJobs, "ratio", run, "");
        }
    }

    /** @return ns to add {@code flows} flows, 50 in flight */
    private long addFlows(int flows) {
        JobQueue parents = bench.freshQueue("flow-parents");
        JobQueue children = bench.freshQueue("flow-children");
        return Pipeline.run(flows, FLOWS_IN_FLIGHT, i -> {
            List<FlowJob> kids = new ArrayList<>(CHILDREN);
            for (int c = 0; c < CHILDREN; c++) {
                kids.add(FlowJob.of(children.name(), "part", IntNode.valueOf(c)));
            }
            return producer.add(FlowJob.of(parents.name(), "report", IntNode.valueOf(i)).withChildren(kids));
        });
    }

    /** @return ns to add the same jobs as plain jobs, as many in flight */
    private long addPlain(int flows) {
        JobQueue parents = bench.freshQueue("plain-parents");
        JobQueue children = bench.freshQueue("plain-children");
        return Pipeline.run(flows * (1 + CHILDREN), FLOWS_IN_FLIGHT * (1 + CHILDREN), i -> i % (1 + CHILDREN) == 0
                ? parents.add("report", IntNode.valueOf(i), JobOptions.defaults())
                : children.add("part", IntNode.valueOf(i), JobOptions.defaults()));
    }
}

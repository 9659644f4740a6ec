package dev.fencedqueue.suites;

/**
 * How {@code ./mvnw verify} splits the test classes between JVMs that run at once: one JUnit suite per fork, three for
 * surefire ({@code *Test}: {@link LlmAndStreamsTestSuite}, {@link TopologiesAndWorkersTestSuite} and
 * {@link EverythingElseTestSuite}) and two for failsafe ({@code *IT}: {@link PackagedApplicationITSuite} and
 * {@link ProcessesITSuite}); the suites of a plugin select each of its classes once. A new test class needs no entry
 * here: it falls into the last suite of its plugin unless its name matches another's pattern.
 * <p>
 * One suite per fork, not classes handed to the forks one by one: surefire and failsafe give a fork's classes to
 * JUnit one launcher session each, which makes Quarkus restart the application for every class
 * (quarkusio/quarkus#43979). Within one suite Quarkus orders the classes by test profile and test resources and starts
 * the application once per combination.
 * <p>
 * The split pairs classes that mostly wait (LLM answers streamed at the simulator's pace, Sentinel failovers, Redis
 * restarts, service processes starting) with classes that mostly compute (hundreds of SSE clients, fan-outs, the
 * browser tests), and keeps each family of test profiles in one fork, so that no fork builds an application the other
 * builds too. Surefire's forks mostly wait once their applications are built (the two cores were idle 70 to 90 % of
 * the second half of a run with two forks, 2026-11-29), hence three; failsafe's two start service processes that
 * compete for the cores (a third fork made them slower, docs/testing.md). The tests tagged {@value #ALONE} run after
 * failsafe's forks, alone: one starves an instance of CPU with busy loops.
 */
public final class TestForks {

    /**
     * The classes of surefire's first fork (a regular expression on the class's full name): the LLM side
     * ({@code research}, {@code llm}, {@code simulator}) and, to balance the forks' times, classes of the default
     * profile that stream events to readers or keep them ({@code events}, {@code llm.budget}, flows, the job schedulers,
     * the queue's events and retention, many SSE subscribers, the memory guard). {@code SimulatorOffTest} runs in the
     * third fork, with the classes it shares a test profile with; so do all the browser tests
     * ({@code CostAccountingTest} among them), so that one Chromium runs at a time.
     * ({@code LlmMisbehaviourTest} stays with the LLM side: in a busier fork its scenarios once opened the fleet's
     * circuit before the last one, whose message it checks.)
     */
    public static final String LLM_AND_STREAMS =
            "dev\\.fencedqueue\\.(research|llm|simulator)\\."
            + "(?!SimulatorOffTest|CostAccountingTest)\\w*Test"
            + "|dev\\.fencedqueue\\.(events|llm\\.budget|scheduler|flow)\\..*Test"
            + "|dev\\.fencedqueue\\.queue\\.(Retention|QueueEvents|Maintenance)Test"
            + "|dev\\.fencedqueue\\.api\\.(ManySubscribers|RedisMemoryGuard)Test";

    /**
     * The classes of surefire's second fork: the Redis topologies and faults (Sentinel, Cluster, lost writes,
     * restarts, outages, the {@code redis} package), the worker's classes (but {@code NoopQueueTest}, whose profile the
     * third fork builds), the two classes of the {@code OwnersRequired} profile ({@code JobOwnershipTest},
     * {@code JobTenancyPrincipalTest}) and the two of {@code RedisSinkAndTracesProfile} ({@code RedisSinkTest},
     * {@code TracingTest}). Each test profile and set of test resources costs its fork an application built when the
     * fork starts (Quarkus prepares them while JUnit discovers the classes, about 5 to 10 s each here): this fork
     * builds the most of them and so runs the fewest tests. {@code WaitAofTest} and {@code WaitAofRefusedTest}, short
     * classes with a profile or resources of their own, run in the third fork, which has fewer.
     */
    public static final String TOPOLOGIES_AND_WORKERS =
            "dev\\.fencedqueue\\.redis\\..*Test"
            + "|dev\\.fencedqueue\\.queue\\.(Redis|Sentinel|SchedulerRedisRestart)\\w*Test"
            + "|dev\\.fencedqueue\\.api\\.RedisOutageTest"
            + "|dev\\.fencedqueue\\.worker\\.(?!NoopQueueTest)\\w*Test"
            + "|dev\\.fencedqueue\\.api\\.(JobOwnership|JobTenancyPrincipal)Test"
            + "|dev\\.fencedqueue\\.(bulk\\.RedisSink|tracing\\.Tracing)Test";

    /** Every class of surefire's normal run: benchmarks are {@code *Benchmark}, integration tests {@code *IT}. */
    public static final String ALL_TESTS = "dev\\.fencedqueue\\..*Test";

    /**
     * The classes of failsafe's first fork: the {@code @QuarkusIntegrationTest} classes (the packaged application
     * started by Quarkus, one at a time: it reads the port from the fork's own log file, {@code quarkus.log.file.path}
     * in the pom), the quick checks of what the build wrote, and the shorter process tests, which balance the forks'
     * times.
     */
    public static final String PACKAGED_APPLICATION = "dev\\.fencedqueue\\.(api|research)\\..*IT"
            + "|dev\\.fencedqueue\\.it\\.(PackagedOperator|KubernetesManifest|ContainerImage|StartupChecks)IT"
            + "|dev\\.fencedqueue\\.it\\.(AdminAuthProcess|GracefulShutdown|LlmOutageProcess|SchedulerProcess)IT"
            + "|dev\\.fencedqueue\\.it\\.(FanOutProcess|ZombieProcess)IT";

    /**
     * The JUnit tag of the integration tests that run alone, after both of failsafe's forks (an execution of their own
     * in the pom): the chaos suite's CPU starvation, which pins busy loops to a CPU.
     */
    public static final String ALONE = "alone";

    /** Every class of failsafe's run in two forks. */
    public static final String ALL_ITS = "dev\\.fencedqueue\\..*IT";

    private TestForks() {
    }
}

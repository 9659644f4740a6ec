package dev.fencedqueue.suites;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/** The test classes of surefire's second fork: {@link TestForks#TOPOLOGIES_AND_WORKERS}. */
@Suite
@SelectPackages("dev.fencedqueue")
@IncludeClassNamePatterns(TestForks.TOPOLOGIES_AND_WORKERS)
public class TopologiesAndWorkersTestSuite {
}

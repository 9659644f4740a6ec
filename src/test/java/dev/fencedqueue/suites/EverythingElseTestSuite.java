package dev.fencedqueue.suites;

import org.junit.platform.suite.api.ExcludeClassNamePatterns;
import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * The test classes of surefire's third fork: every {@code *Test} but {@link TestForks#LLM_AND_STREAMS} and
 * {@link TestForks#TOPOLOGIES_AND_WORKERS}.
 */
@Suite
@SelectPackages("dev.fencedqueue")
@IncludeClassNamePatterns(TestForks.ALL_TESTS)
@ExcludeClassNamePatterns({TestForks.LLM_AND_STREAMS, TestForks.TOPOLOGIES_AND_WORKERS})
public class EverythingElseTestSuite {
}

package dev.fencedqueue.suites;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/** The test classes of surefire's first fork: {@link TestForks#LLM_AND_STREAMS}. */
@Suite
@SelectPackages("dev.fencedqueue")
@IncludeClassNamePatterns(TestForks.LLM_AND_STREAMS)
public class LlmAndStreamsTestSuite {
}

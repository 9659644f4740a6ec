package dev.fencedqueue.suites;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/** The integration test classes of failsafe's first fork: {@link TestForks#PACKAGED_APPLICATION}. */
@Suite
@SelectPackages("dev.fencedqueue")
@IncludeClassNamePatterns(TestForks.PACKAGED_APPLICATION)
public class PackagedApplicationITSuite {
}

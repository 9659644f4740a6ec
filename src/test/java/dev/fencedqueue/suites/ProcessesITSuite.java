package dev.fencedqueue.suites;

import org.junit.platform.suite.api.ExcludeClassNamePatterns;
import org.junit.platform.suite.api.ExcludeTags;
import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * The integration test classes of failsafe's second fork: the service processes of the {@code it} package
 * ({@code ProcessFleet}), every {@code *IT} but {@link TestForks#PACKAGED_APPLICATION}, without the tests tagged
 * {@value TestForks#ALONE}.
 */
@Suite
@SelectPackages("dev.fencedqueue")
@IncludeClassNamePatterns(TestForks.ALL_ITS)
@ExcludeClassNamePatterns(TestForks.PACKAGED_APPLICATION)
@ExcludeTags(TestForks.ALONE)
public class ProcessesITSuite {
}

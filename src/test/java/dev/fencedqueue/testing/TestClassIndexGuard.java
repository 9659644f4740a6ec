package dev.fencedqueue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import io.quarkus.test.common.TestClassIndexer;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Keeps the test JVMs of one build, which run at once (docs/testing.md, "Forks"), from reading a Jandex index of the
 * test classes that another one is writing. Quarkus 3.31 writes that index to one file in the test classes' directory
 * ({@code target/test-classes/test-classes.idx}) before it builds each application, truncating it first, and reads it
 * back right after: a fork that reads it while another writes it fails its discovery with "Not a jandex index"
 * (quarkusio/quarkus#54579, fixed after 3.31 by an atomic write). A directory of that name makes every write fail,
 * which Quarkus ignores, and every read fail, after which Quarkus indexes the test classes again itself (about 60 ms):
 * each fork then uses an index of its own, never a file another fork writes. The directory holds a note, so that
 * Quarkus cannot delete it when an application stops (it ignores that failure too).
 * <p>
 * Registered as a JUnit Platform launcher session listener ({@code META-INF/services}): it runs when a test JVM opens
 * its session, before JUnit discovers the classes and Quarkus builds their applications.
 */
public class TestClassIndexGuard implements LauncherSessionListener {

    private static final String NOTE = "Quarkus writes its index of the test classes here; this directory stops it,"
            + " so that the test JVMs of one build never read an index another one is writing (TestClassIndexGuard).\n";

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        Path testClasses;
        try {
            testClasses = Path.of(TestClassIndexGuard.class.getProtectionDomain().getCodeSource().getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("the test classes' location is not a path", e);
        }
        if (Files.isDirectory(testClasses)) {
            guard(testClasses.resolve(TestClassIndexer.TEST_CLASSES_IDX));
        }
    }

    /** Puts a directory with a note in place of the index file {@code index}; other JVMs may do the same at once. */
    static void guard(Path index) {
        try {
            if (Files.isRegularFile(index)) {
                // An index a build without this guard left.
                Files.deleteIfExists(index);
            }
            Files.createDirectories(index);
            Files.writeString(index.resolve("README"), NOTE);
        } catch (FileAlreadyExistsException | NoSuchFileException raced) {
            // Another JVM of the build got there at the same moment: its directory does the same.
        } catch (IOException e) {
            throw new UncheckedIOException("cannot put a directory in place of " + index, e);
        }
    }
}

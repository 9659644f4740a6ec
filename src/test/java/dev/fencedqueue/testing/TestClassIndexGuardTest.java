package dev.fencedqueue.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.quarkus.test.common.TestClassIndexer;
import org.jboss.jandex.Index;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quarkus's own index file handling, against a directory {@link TestClassIndexGuard} put in its place: no test JVM
 * writes the shared file, and each reads an index of the test classes it made itself.
 */
class TestClassIndexGuardTest {

    @TempDir
    Path testClasses;

    @Test
    void quarkusWritesNoSharedIndexAndEachReadIndexesTheTestClassesAgain() throws IOException {
        Path index = testClasses.resolve(TestClassIndexer.TEST_CLASSES_IDX);
        Files.writeString(index, "an index an earlier build left");
        TestClassIndexGuard.guard(index);
        TestClassIndexGuard.guard(index);

        // What another JVM writes (here an index of nothing) never reaches this one.
        TestClassIndexer.writeIndex(Index.of(new Class<?>[0]), testClasses, getClass());
        assertThat(index).isDirectory();
        Index read = TestClassIndexer.readIndex(testClasses, getClass());
        assertThat(read.getClassByName(getClass())).as("an index of the test classes made by the reader").isNotNull();

        // When an application stops, Quarkus removes the index (TestClassIndexer.removeIndex: Files.delete, its failure
        // ignored): the directory, which holds the note, stays.
        assertThat(index.resolve("README")).isRegularFile();
        assertThatThrownBy(() -> Files.delete(index)).isInstanceOf(DirectoryNotEmptyException.class);
        assertThat(index).isDirectory();
    }
}

package dev.fencedqueue.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The temporary directories the tests' processes work in (Redis's, PostgreSQL's, Chromium's), deleted after them. */
public final class TempDirectories {

    private TempDirectories() {
    }

    /**
     * Deletes a directory and everything in it, as far as it can: a file that cannot be deleted stays (a temporary
     * directory left behind is not worth failing a test for).
     *
     * @param dir the directory, not {@code null}; nothing happens when it does not exist
     */
    public static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException | UncheckedIOException e) {
            // gone already, or not readable to the end (the whole tree is listed before anything is deleted): it stays
        }
    }
}

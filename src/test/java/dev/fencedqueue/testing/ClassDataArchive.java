package dev.fencedqueue.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.fencedqueue.dev.EmbeddedRedis;

/**
 * A class-data sharing archive of the packaged jar (the JDK's dynamic AppCDS archive, JEP 350), so that each of the
 * dozens of service processes the integration tests start maps the classes it loads rather than parsing and verifying
 * them again: about a fifth less CPU per start (4.4 s against 3.5 s of CPU until the service listens, on the 2-core
 * machine, 2026-11-29), which a loaded 2-core machine gives back as wall time.
 * <p>
 * The archive is written once per jar and test JVM that asks for it: the jar is started on a Redis of its own with
 * {@code -XX:ArchiveClassesAtExit}, the JVM running the tests and the test processes' options, and asked to stop once
 * ready, when it writes the archive (about 8 s in all). It sits in {@code target/class-data/}, named by the jar's name,
 * size and time, written to a file of its own and renamed into place, so that two test JVMs (failsafe's forks) that
 * write it at once each find a whole archive. A JVM refuses an archive that does not match its own version or the
 * class path's jars and runs without one; a generation that fails leaves the tests without an archive and says why,
 * never failing a test.
 */
final class ClassDataArchive {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(60);

    private static final ConcurrentHashMap<Path, Optional<Path>> ARCHIVES = new ConcurrentHashMap<>();

    private ClassDataArchive() {
    }

    /**
     * @param application the jar, run by the JVM running these tests, must not be {@code null}
     * @param jvmOptions the options the jar will run with (the archive is written with the same), must not be
     *        {@code null}
     * @return the archive, written now if this jar has none yet; empty when it could not be written
     */
    static Optional<Path> of(PackagedApplication application, List<String> jvmOptions) {
        return ARCHIVES.computeIfAbsent(application.path(), jar -> existingOrWritten(application, jvmOptions));
    }

    private static Optional<Path> existingOrWritten(PackagedApplication application, List<String> jvmOptions) {
        Path jar = application.path();
        try {
            Path directory = Files.createDirectories(jar.getParent().resolveSibling("class-data"));
            Path archive = directory.resolve(String.format("%s-%d-%d.jsa", jar.getFileName(), Files.size(jar),
                    Files.getLastModifiedTime(jar).toMillis()));
            if (Files.isRegularFile(archive)) {
                return Optional.of(archive);
            }
            Path written = Files.createTempFile(directory, "class-data-", ".jsa.tmp");
            Files.delete(written); // the JVM writes it anew at its exit
            Path log = directory.resolve(written.getFileName() + ".log");
            List<String> options = new ArrayList<>(jvmOptions);
            options.add("-XX:ArchiveClassesAtExit=" + written);
            int exit;
            try (RedisProcess redis = RedisProcess.startAlone("--save", "", "--appendonly", "no");
                    ServiceProcess process = ServiceProcess.start(application, options, "class-data",
                            EmbeddedRedis.freePort(), Map.of("quarkus.redis.hosts", redis.uri()), Map.of(), log)) {
                process.awaitReady(READY_TIMEOUT);
                process.requestShutdown();
                exit = process.awaitExit(EXIT_TIMEOUT);
            }
            // 0 or 143 (128 + SIGTERM): it ended by itself, the archive written on the way out (not 137: a SIGKILL
            // may have cut the writing short)
            if ((exit != 0 && exit != 143) || !Files.isRegularFile(written)) {
                System.out.printf("no class-data sharing archive for %s: its run exited with %d, see %s%n", jar, exit,
                        log);
                Files.deleteIfExists(written);
                return Optional.empty();
            }
            Files.move(written, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Files.deleteIfExists(log);
            return Optional.of(archive);
        } catch (IOException | RuntimeException e) {
            System.out.printf("no class-data sharing archive for %s: %s%n", jar, e);
            return Optional.empty();
        }
    }
}

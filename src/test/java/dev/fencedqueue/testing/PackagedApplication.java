package dev.fencedqueue.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The application that {@code ./mvnw package} built, as Quarkus records it in
 * {@code target/quarkus-artifact.properties} (the file {@code @QuarkusIntegrationTest} reads too): the
 * runnable jar of a JVM build, or the executable of a native build ({@code -Dnative}). Process tests start
 * whichever was built, so the same tests run against the jar in {@code ./mvnw verify} and against the native
 * executable in {@code ./mvnw verify -Dnative}.
 *
 * @param type what was built
 * @param path the runnable jar or the native executable, absolute
 * @param java the {@code java} executable that runs a jar; {@code null} means the one running these tests
 */
public record PackagedApplication(Type type, Path path, Path java) {

    /** The kind of build. */
    public enum Type {
        /** {@code quarkus-run.jar} of the fast-jar layout, run by a JVM. */
        JAR,
        /** A native executable built by GraalVM's {@code native-image}. */
        NATIVE
    }

    /** Quarkus's record of the last build. */
    public static final Path ARTIFACT_PROPERTIES = Path.of("target", "quarkus-artifact.properties").toAbsolutePath();

    /**
     * @return the application of the last {@code package}
     * @throws IllegalStateException when nothing was packaged, or the recorded file is gone
     */
    public static PackagedApplication built() {
        if (!Files.isRegularFile(ARTIFACT_PROPERTIES)) {
            throw new IllegalStateException(ARTIFACT_PROPERTIES + " does not exist: run `./mvnw verify` (or `./mvnw "
                    + "verify -Dnative`), whose package phase builds the application");
        }
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(ARTIFACT_PROPERTIES)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + ARTIFACT_PROPERTIES, e);
        }
        String type = properties.getProperty("type", "");
        Path path = ARTIFACT_PROPERTIES.getParent().resolve(properties.getProperty("path", "")).toAbsolutePath();
        PackagedApplication application = switch (type) {
            case "jar" -> new PackagedApplication(Type.JAR, path, null);
            case "native" -> new PackagedApplication(Type.NATIVE, path, null);
            default -> throw new IllegalStateException(ARTIFACT_PROPERTIES + " names an unknown type `" + type + "`");
        };
        return application.requireExists();
    }

    /**
     * @param path the native executable, must not be {@code null}
     * @return that executable, whatever was built last
     * @throws IllegalStateException when the file does not exist
     */
    public static PackagedApplication nativeExecutable(Path path) {
        return new PackagedApplication(Type.NATIVE, path.toAbsolutePath(), null).requireExists();
    }

    /**
     * @param path the runnable jar ({@code target/quarkus-app/quarkus-run.jar}), must not be {@code null}
     * @return that jar, whatever was built last
     * @throws IllegalStateException when the file does not exist
     */
    public static PackagedApplication jar(Path path) {
        return new PackagedApplication(Type.JAR, path.toAbsolutePath(), null).requireExists();
    }

    /**
     * @param javaExecutable the {@code java} executable that runs the jar, or {@code null} for the one running
     *        these tests; ignored for a native executable
     * @return this application, run by that JVM
     */
    public PackagedApplication withJava(Path javaExecutable) {
        return new PackagedApplication(type, path, javaExecutable);
    }

    /**
     * The command line that starts the application. Configuration goes in as {@code -Dkey=value}, which both a
     * JVM and a Quarkus native executable read as system properties.
     *
     * @param jvmOptions options of the JVM, such as {@code -Xmx256m}; ignored for a native executable, must not
     *        be {@code null}
     * @param config configuration, must not be {@code null}
     * @return the command
     */
    public List<String> command(List<String> jvmOptions, Map<String, String> config) {
        List<String> command = new ArrayList<>();
        if (type == Type.JAR) {
            command.add(java != null ? java.toString() : javaBinary());
            command.addAll(jvmOptions);
        } else {
            command.add(path.toString());
        }
        config.forEach((key, value) -> command.add("-D" + key + "=" + value));
        if (type == Type.JAR) {
            command.add("-jar");
            command.add(path.toString());
        }
        return command;
    }

    /** @return {@code jvm} or {@code native}, for names of logs and figures */
    public String label() {
        return type == Type.JAR ? "jvm" : type.name().toLowerCase(Locale.ROOT);
    }

    private PackagedApplication requireExists() {
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException(path + " (" + label() + ") does not exist: package the application first");
        }
        return this;
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}

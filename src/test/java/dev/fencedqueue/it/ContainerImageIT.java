package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.fencedqueue.testing.PackagedApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The container images (no container runtime here, so the Dockerfiles are read, not built): the native ones copy the
 * native executable, run it as a numeric non-root user on the port the Kubernetes manifests probe, on a UBI 9
 * base whose glibc (2.34) and zlib are all the executable links against (the executable is checked only where it
 * was built, {@code ./mvnw verify -Dnative}); the warm JVM's runs the very jar and AOT cache that its training stage,
 * on the same JVM, trained and wrote (what the training does and that a JVM uses its cache: {@link AotCacheIT}).
 */
class ContainerImageIT {

    /** The newest glibc symbol version that UBI 9 provides. */
    private static final List<Integer> UBI9_GLIBC = List.of(2, 34);
    private static final Pattern GLIBC = Pattern.compile("GLIBC_(\\d+)\\.(\\d+)");

    @ParameterizedTest
    @ValueSource(strings = {"Dockerfile.native", "Dockerfile.native-micro"})
    void nativeDockerfileRunsTheExecutableAsANonRootUserOnPort8080(String dockerfile) throws IOException {
        List<String> lines = instructions(dockerfile);

        assertThat(lines.get(0))
                .matches("FROM (registry\\.access\\.redhat\\.com/ubi9/|quay\\.io/quarkus/ubi9-).+:[0-9.]+");
        assertThat(lines).contains("COPY --chown=1001:root --chmod=0755 target/*-runner /work/application",
                "EXPOSE 8080", "USER 1001", "ENTRYPOINT [\"./application\", \"-Dquarkus.http.host=0.0.0.0\"]");
    }

    @Test
    void warmJvmImageRunsTheJarAndCacheItsTrainingStageWroteOnTheSameJvm() throws IOException {
        List<String> instructions = instructions("Dockerfile.jvm-aot");
        Matcher training = Pattern.compile("RUN APP_JAR=(\\S+) AOT_CACHE=(\\S+) .*aot-training\\.sh")
                .matcher(String.join("\n", instructions));
        assertThat(training.find()).as("the training stage runs aot-training.sh: " + instructions).isTrue();
        String jar = training.group(1);
        String cache = training.group(2);

        assertThat(instructions.get(0)).matches("FROM eclipse-temurin:25[0-9.]*-jre\\S* AS jre");
        assertThat(instructions).containsSubsequence("FROM jre AS training", "COPY target/*-runner.jar " + jar,
                "FROM jre", "COPY --from=training --chown=1001:root /deployments/ /deployments/");
        assertThat(jar).startsWith("/deployments/");
        assertThat(cache).startsWith("/deployments/");
        assertThat(instructions).contains("EXPOSE 8080", "USER 1001", "ENTRYPOINT [\"java\", \"-XX:AOTCache=" + cache
                + "\", \"-Dquarkus.http.host=0.0.0.0\", \"-jar\", \"" + jar + "\"]");
    }

    @Test
    void nativeExecutableNeedsNoNewerGlibcThanUbi9AndNoLibraryBeyondGlibcAndZlib()
            throws IOException, InterruptedException {
        PackagedApplication application = PackagedApplication.built();
        assumeTrue(application.type() == PackagedApplication.Type.NATIVE, "runs with ./mvnw verify -Dnative");

        String symbols = run("objdump", "-T", application.path().toString());
        List<Integer> newest = GLIBC.matcher(symbols).results()
                .map(match -> List.of(Integer.parseInt(match.group(1)), Integer.parseInt(match.group(2))))
                .max(Comparator.<List<Integer>>comparingInt(v -> v.get(0)).thenComparingInt(v -> v.get(1)))
                .orElseThrow();
        assertThat(newest.get(0) * 1000 + newest.get(1)).as("newest GLIBC_ version needed: " + newest)
                .isLessThanOrEqualTo(UBI9_GLIBC.get(0) * 1000 + UBI9_GLIBC.get(1));

        String headers = run("objdump", "-p", application.path().toString());
        Matcher needed = Pattern.compile("NEEDED\\s+(\\S+)").matcher(headers);
        List<String> libraries = needed.results().map(match -> match.group(1)).toList();
        assertThat(libraries).isNotEmpty().allSatisfy(library -> assertThat(library)
                .matches("lib(c|z|m|dl|pthread|rt)\\.so\\.\\d+|ld-linux-x86-64\\.so\\.2"));
    }

    /** @return the Dockerfile's instructions, one per element, continued lines joined, comments left out */
    private static List<String> instructions(String dockerfile) throws IOException {
        String text = Files.readAllLines(Path.of("src", "main", "docker", dockerfile)).stream()
                .filter(line -> !line.startsWith("#") && !line.isBlank()).collect(Collectors.joining("\n"));
        return List.of(text.replaceAll("\\s*\\\\\n\\s*", " ").split("\n"));
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            assumeTrue(false, command[0] + " (binutils) is not installed: " + e.getMessage());
            throw e;
        }
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
        return output;
    }
}

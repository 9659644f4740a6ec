package dev.fencedqueue.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md lists every {@code fq.*} option, with its default: the options are read from the
 * {@code @ConfigMapping} interfaces of every package by reflection (method names as kebab-case paths, nested groups
 * included), so an option added without its line in the docs fails here, naming it. Plain JUnit: no application starts.
 */
class ConfigurationDocsTest {

    private static final Path DOCS = Path.of("docs", "configuration.md");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    @Test
    void docsListEveryOptionOfEveryConfigMapping() throws IOException, URISyntaxException {
        Map<String, String> options = options();
        assertThat(options).as("the @ConfigMapping options found").containsKeys("fq.worker.concurrency",
                "fq.llm.retry.max-retries", "fq.research.deep.sub-questions", "fq.llm.request.tools");
        Map<String, Row> documented = documented(Files.readString(DOCS));

        List<String> missing = options.keySet().stream().filter(option -> !documented.containsKey(option)).toList();
        assertThat(missing).as("options of the @ConfigMapping interfaces that %s does not list", DOCS).isEmpty();
    }

    @Test
    void docsGiveEachOptionItsDefault() throws IOException, URISyntaxException {
        Map<String, Row> documented = documented(Files.readString(DOCS));
        List<String> wrong = new ArrayList<>();
        options().forEach((option, defaultValue) -> {
            Row row = documented.get(option);
            // Long defaults (the prompts) are described in words; short ones are quoted as they are.
            if (row != null && defaultValue != null && defaultValue.length() <= 20
                    && !row.defaults().toLowerCase(Locale.ROOT).contains("`" + defaultValue.toLowerCase(Locale.ROOT) + "`")) {
                wrong.add(option + " (default `" + defaultValue + "`, docs say: " + row.defaults() + ")");
            }
        });
        assertThat(wrong).as("options whose default %s does not give", DOCS).isEmpty();
    }

    @Test
    void documentsTheResponsesProtocolAndItsOptions() throws IOException {
        String docs = Files.readString(DOCS);
        assertThat(docs.contains("`responses` (OpenAI's Responses API")).as("fq.llm.protocol names `responses`")
                .isTrue();
        Map<String, Row> documented = documented(docs);
        assertThat(documented).containsKeys("fq.llm.request.tools", "fq.llm.request.reasoning-summary", "fq.llm.resume.queued-timeout",
                "fq.llm.resume.poll-interval", "fq.llm.resume.mode");
    }

    /** @return every option of the application's mappings, in every package, by path, with its default (null: none) */
    static Map<String, String> options() throws IOException, URISyntaxException {
        Path classes = Path.of(ConfigurationDocsTest.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolveSibling("classes");
        Map<String, String> options = new TreeMap<>();
        try (Stream<Path> files = Files.walk(classes.resolve("dev/fencedqueue"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class") && !f.getFileName().toString()
                    .contains("$")).toList()) {
                String name = classes.relativize(file).toString().replace(".class", "").replace('/', '.');
                Class<?> type;
                try {
                    type = Class.forName(name, false, ConfigurationDocsTest.class.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    continue;
                }
                ConfigMapping mapping = type.getAnnotation(ConfigMapping.class);
                if (mapping != null) {
                    collect(type, mapping.prefix(), options);
                }
            }
        }
        return options;
    }

    private static void collect(Class<?> group, String prefix, Map<String, String> options) {
        for (Method method : group.getMethods()) {
            if (method.isDefault() || Modifier.isStatic(method.getModifiers()) || method.getParameterCount() > 0
                    || method.getDeclaringClass() == Object.class) {
                continue;
            }
            String path = method.isAnnotationPresent(WithParentName.class) ? prefix
                    : prefix + "." + (method.isAnnotationPresent(WithName.class)
                            ? method.getAnnotation(WithName.class).value() : kebab(method.getName()));
            Class<?> type = method.getReturnType();
            if (type.isInterface() && type.getName().startsWith("dev.fencedqueue.")) {
                collect(type, path, options);
            } else {
                WithDefault value = method.getAnnotation(WithDefault.class);
                options.put(path, value == null ? null : value.value());
            }
        }
    }

    /** @return {@code maxStalledCount} as SmallRye Config names it: {@code max-stalled-count} */
    static String kebab(String name) {
        return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /**
     * One row of the docs' tables.
     *
     * @param defaults its default cell
     */
    record Row(String defaults) {
    }

    /**
     * @param docs the text of docs/configuration.md
     * @return each option its tables name, with its row. A row's first cell may name several: in full
     *         ({@code `fq.llm.request.max-tokens` / `fq.llm.request.temperature`}) or, after the first, by the last part of the path
     *         ({@code `fq.llm.retry.max-retries` / `delay` / `max-delay`})
     */
    static Map<String, Row> documented(String docs) {
        Map<String, Row> rows = new HashMap<>();
        for (String line : docs.split("\n")) {
            String[] cells = line.split("(?<!\\\\)\\|");
            if (!line.startsWith("|") || cells.length < 4) {
                continue;
            }
            String first = null;
            Matcher code = CODE.matcher(cells[1]);
            while (code.find()) {
                String name = code.group(1).replaceAll("=.*", "");
                if (name.startsWith("fq.")) {
                    first = first == null ? name : first;
                    rows.put(name, new Row(cells[2]));
                } else if (first != null && name.matches("[a-z0-9-]+")) {
                    rows.put(first.substring(0, first.lastIndexOf('.') + 1) + name, new Row(cells[2]));
                }
            }
        }
        return rows;
    }
}

package dev.fencedqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Lua script and inlines its includes, as BullMQ's script loader does: each line
 * {@code --- @include "name"} is replaced by the file {@code lua/includes/<name>.lua}, whose own include lines are
 * resolved the same way first, so that an include comes before everything that uses it. Each include is inlined
 * once per script, where it is first named; a later line naming it again is dropped with its line break. A script
 * therefore names only the includes it uses itself.
 */
final class LuaSource {

    private static final Pattern INCLUDE = Pattern.compile("(?m)^--- @include \"([A-Za-z]+)\"$(\n?)");
    private static final String INCLUDES = "lua/includes/";

    private final Function<String, String> reader;
    private final Set<String> inlined = new HashSet<>();
    private final Deque<String> resolving = new ArrayDeque<>();

    private LuaSource(Function<String, String> reader) {
        this.reader = reader;
    }

    /**
     * Reads a script from the class path with its includes inlined.
     *
     * @param resource the script's class path resource, such as {@code lua/addJob-9.lua}; must not be {@code null}
     * @return the script's text with every include inlined once
     * @throws IllegalStateException when the script or an include it names (directly or through another include) is
     *         missing, or when includes name each other in a cycle (the message shows the cycle)
     * @throws UncheckedIOException when a resource cannot be read
     */
    static String resolve(String resource) {
        return resolve(resource, LuaSource::read);
    }

    /**
     * Reads a script through {@code reader} with its includes inlined (for tests).
     *
     * @param resource the script's resource name, must not be {@code null}
     * @param reader the text of a resource by its name ({@code lua/includes/<name>.lua} for an include); it throws
     *        {@link IllegalStateException} for a missing one; must not be {@code null}
     * @return the script's text with every include inlined once
     * @throws IllegalStateException when includes name each other in a cycle, or as {@code reader} throws
     */
    static String resolve(String resource, Function<String, String> reader) {
        return new LuaSource(reader).inline(reader.apply(resource));
    }

    private String inline(String text) {
        Matcher matcher = INCLUDE.matcher(text);
        StringBuilder resolved = new StringBuilder();
        while (matcher.find()) {
            String include = include(matcher.group(1));
            matcher.appendReplacement(resolved,
                    include.isEmpty() ? "" : Matcher.quoteReplacement(include + matcher.group(2)));
        }
        matcher.appendTail(resolved);
        return resolved.toString();
    }

    private String include(String name) {
        if (resolving.contains(name)) {
            StringBuilder cycle = new StringBuilder();
            resolving.descendingIterator().forEachRemaining(step -> cycle.append(step).append(" -> "));
            throw new IllegalStateException("Lua includes name each other in a cycle: " + cycle + name);
        }
        if (!inlined.add(name)) {
            return "";
        }
        resolving.push(name);
        String text = inline(reader.apply(INCLUDES + name + ".lua"));
        resolving.pop();
        return text;
    }

    private static String read(String resource) {
        try (InputStream in = LuaSource.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing Lua script resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }
}

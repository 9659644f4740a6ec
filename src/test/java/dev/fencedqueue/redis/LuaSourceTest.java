package dev.fencedqueue.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** Includes are inlined recursively, each once and before what uses it: {@link LuaSource}. */
class LuaSourceTest {

    private static final Pattern FUNCTION = Pattern.compile("(?m)^local function ([A-Za-z]+)\\(");

    @Test
    void inlinesNestedIncludesOnceBeforeTheirUsers() {
        Map<String, String> files = Map.of(
                "script.lua", "--- @include \"c\"\n--- @include \"b\"\nreturn c()\n",
                "lua/includes/a.lua", "local function a() end\n",
                "lua/includes/b.lua", "--- @include \"a\"\nlocal function b() a() end\n",
                "lua/includes/c.lua", "--- @include \"b\"\n--- @include \"a\"\nlocal function c() b() end\n");

        String text = LuaSource.resolve("script.lua", name -> read(files, name));

        assertThat(text).isEqualTo("local function a() end\n\nlocal function b() a() end\n\n"
                + "local function c() b() end\n\nreturn c()\n");
    }

    @Test
    void refusesIncludesThatNameEachOtherInACycle() {
        Map<String, String> files = Map.of(
                "script.lua", "--- @include \"a\"\n",
                "lua/includes/a.lua", "--- @include \"b\"\n",
                "lua/includes/b.lua", "--- @include \"a\"\n");

        assertThatThrownBy(() -> LuaSource.resolve("script.lua", name -> read(files, name)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("a -> b -> a");
    }

    @Test
    void refusesAMissingInclude() {
        assertThatThrownBy(() -> LuaSource.resolve("lua/none-1.lua")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lua/none-1.lua");
    }

    @Test
    void everyScriptDefinesEachIncludedFunctionOnceAndKeepsNoIncludeLine() {
        for (LuaScript script : LuaScript.values()) {
            String text = LuaSource.resolve(script.resource());

            assertThat(text).as(script.scriptName()).doesNotContainPattern("(?m)^--- @include");
            Matcher functions = FUNCTION.matcher(text);
            Set<String> seen = new HashSet<>();
            while (functions.find()) {
                assertThat(seen.add(functions.group(1))).as(script.scriptName() + " defines " + functions.group(1)
                        + " once").isTrue();
            }
        }
    }

    private static String read(Map<String, String> files, String name) {
        String text = files.get(name);
        if (text == null) {
            throw new IllegalStateException("missing Lua script resource " + name);
        }
        return text;
    }
}

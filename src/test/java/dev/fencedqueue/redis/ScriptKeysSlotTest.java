package dev.fencedqueue.redis;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

/** A script call's keys must all land in one Redis Cluster slot: {@link LuaScripts#requireOneSlot}. */
class ScriptKeysSlotTest {

    private static final LuaScript SCRIPT = LuaScript.HAND_BACK_JOB;

    @Test
    void acceptsKeysThatAllCarryTheFirstKeysHashTag() {
        assertThatCode(() -> LuaScripts.requireOneSlot(SCRIPT,
                List.of("fq:{q1}:active", "fq:{q1}:wait", "other:{q1}:x{y}"))).doesNotThrowAnyException();
    }

    @Test
    void refusesAKeyWithAnotherHashTag() {
        assertThatThrownBy(() -> LuaScripts.requireOneSlot(SCRIPT, List.of("fq:{q1}:active", "fq:{q2}:wait")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("`fq:{q2}:wait`")
                .hasMessageContaining("{q1}");
        assertThatThrownBy(() -> LuaScripts.requireOneSlot(SCRIPT, List.of("fq:{q1}:active", "fq:{q12}:wait")))
                .as("a tag that starts like the first one is another tag").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LuaScripts.requireOneSlot(SCRIPT, List.of("fq:{q12}:active", "fq:{q1}:wait")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesKeysWithoutAHashTag() {
        assertThatThrownBy(() -> LuaScripts.requireOneSlot(SCRIPT, List.of("fq:{q1}:active", "fq:q1:wait")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("`fq:q1:wait`");
        assertThatThrownBy(() -> LuaScripts.requireOneSlot(SCRIPT, List.of("fq:q1:active")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("`fq:q1:active`");
        assertThatThrownBy(() -> LuaScripts.requireOneSlot(SCRIPT, List.of("fq:{}:active", "fq:{}:wait")))
                .as("an empty tag is no tag").isInstanceOf(IllegalArgumentException.class);
    }
}

package dev.fencedqueue.research;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.fencedqueue.config.SimulatorConfig.TrailingAssistant;
import dev.fencedqueue.llm.ChatCompletionsClient;
import dev.fencedqueue.llm.LlmTestAccess;
import dev.fencedqueue.simulator.SimulatorAnswers;
import org.junit.jupiter.api.Test;

/**
 * The oracle over many cut points, without a queue: an answer committed up to any character (mid-word included) and
 * continued by the simulated model, with a trailing assistant message or by instruction (repeating a few words at the
 * seam, cleaned by {@link SeamCleaner}), gives exactly the uninterrupted answer.
 */
class ContinuationPropertyTest {

    private static final String QUESTION = "How do fenced job queues resume long answers?";
    private static final int WORDS = 400;
    private static final long SEED = 20261125L;

    @Test
    void aTrailingAssistantContinuationFromAnyPointGivesTheUninterruptedAnswer() {
        String full = full();
        Random random = new Random(SEED);
        for (int i = 0; i < 300; i++) {
            String committed = full.substring(0, 1 + random.nextInt(full.length() - 1));
            List<String> tokens = SimulatorAnswers.tokens(List.of(user(QUESTION), assistant(committed)), WORDS,
                    TrailingAssistant.CONTINUE, 0);

            assertThat(committed + String.join("", tokens)).as("cut after %d characters", committed.length())
                    .isEqualTo(full);
        }
    }

    @Test
    void anInstructedContinuationFromAnyPointGivesTheUninterruptedAnswerOnceTheSeamIsCleaned() {
        String full = full();
        Random random = new Random(SEED);
        for (int repeated : new int[] {0, 3, 12}) {
            for (int i = 0; i < 200; i++) {
                String committed = full.substring(0, 1 + random.nextInt(full.length() - 1));
                List<String> tokens = SimulatorAnswers.tokens(List.of(user(QUESTION), assistant(committed),
                        user(ChatCompletionsClient.CONTINUE_INSTRUCTION)), WORDS, TrailingAssistant.REFUSE, repeated);

                assertThat(committed + SeamCleanerTest.clean(committed, tokens.toArray(String[]::new)))
                        .as("cut after %d characters, %d words repeated", committed.length(), repeated)
                        .isEqualTo(full);
            }
        }
    }

    @Test
    void aModelThatOpensANewTurnAnswersFromTheStart() {
        String full = full();
        List<String> tokens = SimulatorAnswers.tokens(List.of(user(QUESTION), assistant(full.substring(0, 40))), WORDS,
                TrailingAssistant.NEW_TURN, 0);

        assertThat(String.join("", tokens)).isEqualTo(full);
    }

    @Test
    void theProbeTellsAContinuingModelFromOneThatOpensANewTurn() {
        List<String> words = List.of("alpha", "bravo", "charlie", "delta", "echo", "foxtrot");
        List<String[]> probe = List.of(user(ChatCompletionsClient.PROBE_QUESTION + String.join(" ", words)),
                assistant("alpha bravo charlie"));

        assertThat(LlmTestAccess.continuesProbe(String.join("", SimulatorAnswers.tokens(probe, WORDS,
                TrailingAssistant.CONTINUE, 0)))).isTrue();
        assertThat(LlmTestAccess.continuesProbe(String.join("", SimulatorAnswers.tokens(probe, WORDS,
                TrailingAssistant.NEW_TURN, 0)))).isFalse();
    }

    private static String full() {
        List<String> tokens = SimulatorAnswers.tokens(new ArrayList<>(List.<String[]>of(user(QUESTION))), WORDS,
                TrailingAssistant.CONTINUE, 0);
        assertThat(tokens).hasSize(WORDS);
        return String.join("", tokens);
    }

    private static String[] user(String content) {
        return new String[] {"user", content};
    }

    private static String[] assistant(String content) {
        return new String[] {"assistant", content};
    }
}

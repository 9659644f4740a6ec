package dev.fencedqueue.research;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The simulator's answer: the same for the same question, varied, and without a sentence that recurs. */
class SimulatedAnswerTest {

    @Test
    void isADeterministicFunctionOfTheQuestion() {
        assertThat(SimulatedAnswer.words("solid-state batteries", 400))
                .isEqualTo(SimulatedAnswer.words("solid-state batteries", 400))
                .isNotEqualTo(SimulatedAnswer.words("sodium-ion batteries", 400))
                .hasSize(400);
        assertThat(String.join(" ", SimulatedAnswer.words("solid-state batteries", 400)))
                .startsWith("## Research report: solid-state batteries\n\n**Summary.**").contains("\n\n### Findings\n\n");
        assertThat(SimulatedAnswer.words("q", 300)).as("a prefix of a longer answer")
                .isEqualTo(SimulatedAnswer.words("q", 3_000).subList(0, 300));
    }

    @Test
    void noSentenceRecursWithinAnAnswer() {
        String text = String.join(" ", SimulatedAnswer.words("fencing tokens in practice", 20_000));
        List<String> sentences = Arrays.stream(text.split("(?<=\\.)\\s+")).map(String::strip)
                .map(s -> s.replaceAll("^(#+ [^\\n]*\\n+)+", "")).filter(s -> !s.isEmpty()).toList();

        assertThat(sentences).hasSizeGreaterThan(1_000).doesNotHaveDuplicates();
    }
}

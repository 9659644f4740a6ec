package dev.fencedqueue.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/**
 * The simulator's answer: the same for the same question, varied, without a sentence that recurs, and ending at the
 * end of a sentence with exactly the words asked for; its plan of a deep research job: whole questions about the
 * question's subject, as a model writes them, whether the job asks a question or names a topic.
 */
class SimulatedAnswerTest {

    private static final SimulatedPrompts PROMPTS = new SimulatedPrompts("Plan: ", null, 8);

    @Test
    void isADeterministicFunctionOfTheQuestion() {
        assertThat(SimulatedAnswer.words("solid-state batteries", 400))
                .isEqualTo(SimulatedAnswer.words("solid-state batteries", 400))
                .isNotEqualTo(SimulatedAnswer.words("sodium-ion batteries", 400))
                .hasSize(400);
        assertThat(String.join(" ", SimulatedAnswer.words("solid-state batteries", 400)))
                .startsWith("## Research report: solid-state batteries\n\n**Summary.**").contains("\n\n### Findings\n\n");
        assertThat(SimulatedAnswer.words("q", 300).subList(0, 250)).as("the start of a longer answer")
                .isEqualTo(SimulatedAnswer.words("q", 3_000).subList(0, 250));
    }

    @Test
    void endsAtTheEndOfASentenceWithExactlyTheWordsAsked() {
        for (String question : List.of("q", "solid-state batteries", "How do heat pumps perform in cold climates?")) {
            int summary = summaryWords(question);
            for (int count = summary + ClosingSentences.SHORTEST; count <= summary + 400; count++) {
                List<String> words = SimulatedAnswer.words(question, count);
                String text = String.join(" ", words);
                assertThat(words).as("%s in %d words", question, count).hasSize(count);
                assertThat(text).as("%s in %d words", question, count).endsWith(".").doesNotEndWith("..");
                assertThat(sentences(text)).as("%s in %d words", question, count).doesNotHaveDuplicates()
                        .allMatch(sentence -> Character.isUpperCase(sentence.charAt(0)), "starts with a capital");
            }
        }
    }

    @Test
    void aLengthWithinTheSixWordsAfterTheSummaryEndsWithTheSummary() {
        List<String> whole = SimulatedAnswer.words("q", 1_000);
        int summary = summaryWords("q");

        assertThat(SimulatedAnswer.words("q", summary + 3)).hasSize(summary).endsWith("analysis.")
                .startsWith(whole.subList(0, summary - 1).toArray(String[]::new));
        assertThat(SimulatedAnswer.words("q", 4)).as("shorter than the summary: its first words")
                .isEqualTo(whole.subList(0, 4));
    }

    @Test
    void noSentenceRecursWithinAnAnswer() {
        String text = String.join(" ", SimulatedAnswer.words("fencing tokens in practice", 20_000));

        assertThat(sentences(text)).hasSizeGreaterThan(1_000).doesNotHaveDuplicates();
    }

    /** @return the words of the answer's summary, up to its last sentence's end */
    private static int summaryWords(String question) {
        List<String> words = SimulatedAnswer.words(question, 1_000);
        return (int) words.stream().takeWhile(word -> !word.startsWith("analysis.")).count() + 1;
    }

    /** @return the answer's sentences after its summary, without the headings before them */
    private static List<String> sentences(String text) {
        return Arrays.stream(text.substring(text.indexOf("analysis.") + "analysis.".length()).split("(?<=\\.)\\s+"))
                .map(String::strip).map(s -> s.replaceAll("^(#+ [^\\n]*\\n+)+", "")).filter(s -> !s.isEmpty())
                .toList();
    }

    @Test
    void aQuestionIsPlannedAsWholeQuestionsAboutItsSubjectAsAModelWritesThem() {
        List<String> plan = plan("How do fencing tokens make distributed locks safe?");

        assertThat(plan).hasSize(8).doesNotHaveDuplicates().allSatisfy(line -> {
            assertThat(line).as("a question of its own").matches("[A-Z].*\\?").contains("fencing tokens")
                    .doesNotStartWith("How do fencing tokens make distributed locks safe");
            assertThat(line.chars().filter(c -> c == '?').count()).as("one question mark: " + line).isEqualTo(1);
        });
        assertThat(plan).contains("Which mechanism explains how fencing tokens make distributed locks safe?",
                "Under which conditions do fencing tokens fail, and what happens then?",
                "What do engineers who have deployed fencing tokens report about them in practice?");
        assertThat(plan("How do fencing tokens make distributed locks safe?")).as("deterministic").isEqualTo(plan);
        assertThat(plan("How do heat pumps perform in cold climates?")).as("another question, another order")
                .first().isNotEqualTo(plan.get(0).replace("fencing tokens", "heat pumps"));
    }

    @Test
    void aSingularSubjectTakesASingularVerb() {
        assertThat(plan("How does Raft elect a leader?")).contains("Which mechanism explains how Raft elects a leader?",
                "Under which conditions does Raft fail, and what happens then?",
                "What do engineers who have deployed Raft report about it in practice?");
        assertThat(plan("Why are heat pumps expensive?")).contains(
                "What is the strongest evidence that heat pumps are expensive, and how was it measured?");
    }

    @Test
    void aTopicGetsQuestionsAboutIt() {
        assertThat(plan("solid-state batteries")).contains("What is the current state of solid-state batteries?",
                "What evidence is there on solid-state batteries, and how strong is it?");
        assertThat(plan("The future of fusion power")).as("a common first word is lower-cased")
                .contains("What is the current state of the future of fusion power?");
        assertThat(plan("Kubernetes operators")).as("a name keeps its capital")
                .contains("How do Kubernetes operators compare with the alternatives that solve the same problem?");
        assertThat(plan("What is the current state of fusion power?")).as("a question about a thing")
                .contains("What has changed about the current state of fusion power over the last five years?");
    }

    @Test
    void aQuestionAboutWhatTheAskerShouldDoWeighsThatAction() {
        assertThat(plan("Should we use Kafka or RabbitMQ?")).as("about using Kafka or RabbitMQ, not about \"we\"")
                .contains("What does using Kafka or RabbitMQ gain, and what does it cost?")
                .noneMatch(line -> line.contains(" we "));
        List<String> move = plan("Should we move our job queue from Redis to PostgreSQL?");
        assertThat(move).contains("Under which conditions is moving a job queue from Redis to PostgreSQL the wrong "
                + "choice?", "What do teams report after moving a job queue from Redis to PostgreSQL?")
                .noneMatch(line -> line.contains(" we ") || line.contains(" our "));
        assertThat(plan("Can I run Postgres on Kubernetes?")).contains(
                "What risks does running Postgres on Kubernetes carry, and how can they be reduced?");
    }

    @Test
    void aQuestionWithoutItsQuestionMarkIsStillAQuestion() {
        assertThat(plan("what limits sodium-ion batteries")).as("the question word is its subject: asked about "
                + "what it names").contains("What has changed about sodium-ion batteries over the last five years?")
                .noneMatch(line -> line.contains("limits"));
    }

    /** @return the simulator's plan for {@code question}, one sub-question a line */
    private static List<String> plan(String question) {
        List<String> lines = List.of(PROMPTS.plan("Plan: list sub-questions.\nQuestion: " + question).split("\n"));
        IntStream.range(0, lines.size()).forEach(i -> assertThat(lines.get(i)).isNotBlank());
        return lines;
    }
}

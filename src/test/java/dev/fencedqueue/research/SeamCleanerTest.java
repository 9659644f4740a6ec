package dev.fencedqueue.research;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import dev.fencedqueue.llm.ChatChunk;
import org.junit.jupiter.api.Test;

/**
 * The seam of a continuation asked for by instruction: what the model repeats of the committed answer's end (or of the
 * whole answer, when it starts over) is dropped, by the longest overlap; a continuation that repeats nothing passes
 * whole; text after the seam is never touched.
 */
class SeamCleanerTest {

    private static final String COMMITTED = "## Report\n\nFirst, the primary sources agree on the main trend with "
            + "few exceptions. In practice, vendor documentation shows a steady";

    @Test
    void dropsTheWordsTheContinuationRepeatsFromTheEndOfTheAnswer() {
        assertThat(clean(COMMITTED, " shows", " a", " steady", " improvement", " over", " time."))
                .isEqualTo(" improvement over time.");
    }

    @Test
    void dropsAWholeAnswerTheModelStartedOver() {
        List<String> chunks = new ArrayList<>(List.of(COMMITTED.split("(?= )")));
        chunks.addAll(List.of(" improvement", " over", " time."));

        assertThat(clean(COMMITTED, chunks.toArray(String[]::new))).isEqualTo(" improvement over time.");
    }

    @Test
    void passesAContinuationThatRepeatsNothingWhole() {
        assertThat(clean(COMMITTED, " improvement", " over", " time.")).isEqualTo(" improvement over time.");
    }

    @Test
    void keepsTextThatOnlyOccursEarlierInTheAnswer() {
        // "the primary sources" occurs in the committed answer, but not at its end: it is new text here.
        assertThat(clean(COMMITTED, " improvement;", " the", " primary", " sources", " agree."))
                .isEqualTo(" improvement; the primary sources agree.");
    }

    @Test
    void keepsAnOverlapTooShortToBeARepeat() {
        assertThat(SeamCleaner.overlap("a steady", "dy state")).isZero();
        assertThat(clean("it is steady", "dy", " on", " and", " on", " across", " releases."))
                .isEqualTo("dy on and on across releases.");
    }

    @Test
    void decidesAtTheEndWhenTheContinuationOnlyRepeated() {
        assertThat(clean(COMMITTED, " shows", " a", " steady")).isEmpty();
    }

    @Test
    void leavesReasoningUsageAndFinishReasonOfHeldChunksInPlace() {
        SeamCleaner seam = new SeamCleaner(COMMITTED);
        List<ChatChunk> out = new ArrayList<>(seam.accept(new ChatChunk(" a", "thinking", null, null)));
        out.addAll(seam.accept(new ChatChunk(" steady", null, "stop", new ChatChunk.Usage(1, 2, 3))));
        out.addAll(seam.end());

        assertThat(out).extracting(ChatChunk::reasoning).contains("thinking");
        assertThat(out).extracting(ChatChunk::finishReason).contains("stop");
        assertThat(out).extracting(ChatChunk::usage).contains(new ChatChunk.Usage(1, 2, 3));
        assertThat(out.stream().map(ChatChunk::content).filter(c -> c != null).reduce("", String::concat)).isEmpty();
    }

    static String clean(String committed, String... chunks) {
        SeamCleaner seam = new SeamCleaner(committed);
        StringBuilder text = new StringBuilder();
        for (String chunk : chunks) {
            seam.accept(new ChatChunk(chunk, null, null, null)).forEach(c -> text.append(c.content() == null ? "" : c.content()));
        }
        seam.end().forEach(c -> text.append(c.content() == null ? "" : c.content()));
        return text.toString();
    }
}

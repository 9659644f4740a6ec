package dev.fencedqueue.simulator;

import java.util.ArrayList;
import java.util.List;

/**
 * The built-in simulator's answer to a question: a Markdown report that is a deterministic function of the question
 * and its length (the same question gets the same answer, so a resumed answer can be compared with an uninterrupted
 * one), that ends at the end of a sentence, as a model's answer does, and in which no sentence recurs (a repeat at a
 * resume's seam would show). Each sentence is one combination of four parts (opening, subject, finding,
 * qualification); sentence {@code i} takes combination {@code (seed + i * STRIDE) mod COMBINATIONS}, which differs for
 * every {@code i} below {@code COMBINATIONS} (20,736) because the stride is coprime with it. The last one or two
 * sentences are fitted to the length asked for: parts of other combinations, the opening or the qualification left
 * out, never a sentence used before.
 */
final class SimulatedAnswer {

    static final String[] OPENINGS = {"First,", "In practice,", "By contrast,", "Across the sources,",
        "On closer reading,", "Taken together,", "In the newer studies,", "According to the field reports,",
        "Against expectations,", "Over the last decade,", "In the largest deployments,", "For smaller teams,"};
    static final String[] SUBJECTS = {"the primary sources", "independent benchmarks", "vendor documentation",
        "peer-reviewed papers", "operator surveys", "incident reports", "open-source maintainers", "regulatory filings",
        "long-running field trials", "conference talks", "public datasets", "expert interviews"};
    static final String[] FINDINGS = {"agree on the main trend", "disagree on the size of the effect",
        "report gains that shrink at scale", "point to cost as the deciding factor", "show a steady improvement",
        "flag reliability as the open problem", "suggest that tooling matters most", "measure a wide spread of results",
        "describe failures that repeat across sites", "favour the simpler designs", "see adoption slowing down",
        "tie the outcome to the team's experience"};
    static final String[] QUALIFICATIONS = {"although the samples are small.", "with few exceptions.",
        "when the load is steady.", "once the setup is tuned.", "in most of the cases examined.",
        "though the methods differ.", "under realistic workloads.", "for the first year at least.",
        "where the data is public.", "despite a noisy baseline.", "as later replications confirm.",
        "but only in recent work."};
    static final String[] SECTIONS = {"### Findings", "### Evidence", "### Disagreements", "### Open questions",
        "### Method"};
    static final int COMBINATIONS = 12 * 12 * 12 * 12;
    static final int STRIDE = 7_919; // a prime that does not divide 20,736 = 2^8 * 3^4
    static final int SENTENCES_PER_SECTION = 6;

    private SimulatedAnswer() {
    }

    /**
     * @param question the question, must not be {@code null}
     * @param count how many words, at least 1
     * @return the answer's words, each a token the simulator streams (a word, or Markdown with line breaks attached):
     *         exactly {@code count}, the last one ending a sentence; fewer when {@code count} falls within the six
     *         words after the summary's sentence (the answer is then that summary), and the summary's first
     *         {@code count} words when {@code count} is shorter than it
     */
    static List<String> words(String question, int count) {
        String head = "## Research report: " + question + "\n\n**Summary.** This simulated report answers \""
                + question + "\" from collected documents, web sources and analysis.";
        List<String> words = new ArrayList<>(List.of(head.split(" ")));
        if (count <= words.size()) {
            return words.subList(0, count);
        }
        int seed = Math.floorMod(question.hashCode(), COMBINATIONS);
        for (int i = 0; words.size() < count; i++) {
            int room = count - words.size();
            String sentence = sentence(seed, i);
            int left = room - length(sentence, i);
            if (left == 0 || left >= ClosingSentences.SHORTEST + ClosingSentences.headingWords(i + 1)) {
                place(words, sentence, i);
            } else if (room < ClosingSentences.SHORTEST + ClosingSentences.headingWords(i)) {
                break; // only right after the summary: it ends the answer
            } else if (room <= ClosingSentences.LONGEST) {
                place(words, ClosingSentences.sentence(seed, i, room - ClosingSentences.headingWords(i), null), i);
            } else {
                String first = ClosingSentences.sentence(seed, i, room / 2 - ClosingSentences.headingWords(i), null);
                place(words, first, i);
                place(words, ClosingSentences.sentence(seed, i + 1, room - room / 2 - ClosingSentences.headingWords(i + 1), first), i + 1);
            }
        }
        return words;
    }

    /** Adds sentence {@code i}, after the heading of its section when it starts one (attached to the words around). */
    private static void place(List<String> words, String sentence, int i) {
        if (i % SENTENCES_PER_SECTION == 0) {
            String[] heading = SECTIONS[(i / SENTENCES_PER_SECTION) % SECTIONS.length].split(" ", 2);
            words.set(words.size() - 1, words.get(words.size() - 1) + "\n\n" + heading[0]);
            sentence = heading[1] + "\n\n" + sentence;
        }
        words.addAll(List.of(sentence.split(" ")));
    }

    /** @return the words sentence {@code i} adds, its section's heading included */
    private static int length(String sentence, int i) {
        return sentence.split(" ").length + ClosingSentences.headingWords(i);
    }

    /** @return sentence {@code i}: one combination of the four parts, different for every {@code i} < 20,736 */
    static String sentence(int seed, int i) {
        int n = (int) Math.floorMod(seed + (long) i * STRIDE, (long) COMBINATIONS);
        return OPENINGS[n % 12] + " " + SUBJECTS[(n / 12) % 12] + " " + FINDINGS[(n / 144) % 12] + " "
                + QUALIFICATIONS[(n / 1728) % 12];
    }
}

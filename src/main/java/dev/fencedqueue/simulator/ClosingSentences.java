package dev.fencedqueue.simulator;

import static dev.fencedqueue.simulator.SimulatedAnswer.COMBINATIONS;
import static dev.fencedqueue.simulator.SimulatedAnswer.FINDINGS;
import static dev.fencedqueue.simulator.SimulatedAnswer.OPENINGS;
import static dev.fencedqueue.simulator.SimulatedAnswer.QUALIFICATIONS;
import static dev.fencedqueue.simulator.SimulatedAnswer.SECTIONS;
import static dev.fencedqueue.simulator.SimulatedAnswer.SENTENCES_PER_SECTION;
import static dev.fencedqueue.simulator.SimulatedAnswer.STRIDE;
import static dev.fencedqueue.simulator.SimulatedAnswer.SUBJECTS;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * The sentences that end a {@link SimulatedAnswer} at the length asked for: of exactly a given number of words, made
 * of the same four parts as the answer's other sentences (the opening or the qualification possibly left out), never a
 * whole combination that an earlier sentence of the answer used.
 */
final class ClosingSentences {

    /** Fewest words of a closing sentence: a subject and a finding. */
    static final int SHORTEST = 6;
    /** Most words of a closing sentence: the four parts at their longest. */
    static final int LONGEST = 21;

    private static final int PARTS = 12;
    private static final int NONE = PARTS;
    private static final int INVERSE = BigInteger.valueOf(STRIDE).modInverse(BigInteger.valueOf(COMBINATIONS))
            .intValueExact();
    private static final int[] OPENING_WORDS = Arrays.stream(OPENINGS).mapToInt(ClosingSentences::words).toArray();
    private static final int[] SUBJECT_WORDS = Arrays.stream(SUBJECTS).mapToInt(ClosingSentences::words).toArray();
    private static final int[] FINDING_WORDS = Arrays.stream(FINDINGS).mapToInt(ClosingSentences::words).toArray();
    private static final int[] QUALIFICATION_WORDS = Arrays.stream(QUALIFICATIONS).mapToInt(ClosingSentences::words)
            .toArray();

    private ClosingSentences() {
    }

    /** @return the words the heading before sentence {@code i} adds (its last word is joined to the sentence's first) */
    static int headingWords(int i) {
        return i % SENTENCES_PER_SECTION == 0
                ? words(SECTIONS[(i / SENTENCES_PER_SECTION) % SECTIONS.length]) - 2 : 0;
    }

    /**
     * @param seed the answer's seed
     * @param i the sentence's place in the answer: its combination is where the search starts, and the combinations of
     *        sentences before it are not used whole
     * @param words its words, {@link #SHORTEST} to {@link #LONGEST}
     * @param other a sentence it must differ from, or {@code null}
     * @return the first sentence of exactly {@code words} words, in a deterministic order
     * @throws IllegalArgumentException when {@code words} is out of range
     */
    static String sentence(int seed, int i, int words, String other) {
        if (words < SHORTEST || words > LONGEST) {
            throw new IllegalArgumentException("a closing sentence has " + SHORTEST + " to " + LONGEST + " words, not "
                    + words);
        }
        int n = Math.floorMod(seed + (long) i * STRIDE, COMBINATIONS);
        for (int o = 0; o <= PARTS; o++) {
            for (int q = 0; q <= PARTS; q++) {
                for (int f = 0; f < PARTS; f++) {
                    for (int s = 0; s < PARTS; s++) {
                        int opening = o == NONE ? NONE : (n % PARTS + o) % PARTS;
                        int subject = (n / PARTS % PARTS + s) % PARTS;
                        int finding = (n / (PARTS * PARTS) % PARTS + f) % PARTS;
                        int qualification = q == NONE ? NONE : (n / (PARTS * PARTS * PARTS) + q) % PARTS;
                        if (length(opening, subject, finding, qualification) != words
                                || opening != NONE && qualification != NONE
                                        && usedBefore(seed, i, opening, subject, finding, qualification)) {
                            continue;
                        }
                        String sentence = compose(opening, subject, finding, qualification);
                        if (!sentence.equals(other)) {
                            return sentence;
                        }
                    }
                }
            }
        }
        throw new IllegalStateException("no closing sentence of " + words + " words"); // the parts make every length
    }

    private static int length(int opening, int subject, int finding, int qualification) {
        return (opening == NONE ? 0 : OPENING_WORDS[opening]) + SUBJECT_WORDS[subject] + FINDING_WORDS[finding]
                + (qualification == NONE ? 0 : QUALIFICATION_WORDS[qualification]);
    }

    /** @return whether a sentence before {@code i} is this combination (sentence j is seed + j * STRIDE) */
    private static boolean usedBefore(int seed, int i, int opening, int subject, int finding, int qualification) {
        int combination = opening + PARTS * (subject + PARTS * (finding + PARTS * qualification));
        long place = Math.floorMod((long) (combination - seed) * INVERSE, (long) COMBINATIONS);
        return place < i;
    }

    private static String compose(int opening, int subject, int finding, int qualification) {
        String who = SUBJECTS[subject];
        if (opening == NONE) {
            who = Character.toUpperCase(who.charAt(0)) + who.substring(1);
        }
        return (opening == NONE ? "" : OPENINGS[opening] + " ") + who + " " + FINDINGS[finding]
                + (qualification == NONE ? "." : " " + QUALIFICATIONS[qualification]);
    }

    private static int words(String text) {
        return text.split(" ").length;
    }
}

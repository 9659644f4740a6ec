package dev.fencedqueue.simulator;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The sub-questions the simulator plans for a deep research question: whole questions of their own, as a model
 * writes them, about the question's subject, never the question with an aspect appended. A question is read as
 * {@code [question word] [auxiliary] <subject> <predicate>} ("How do | fencing tokens | make distributed locks safe?");
 * its subject is the words before the first verb of a short list, else a name or the first two words; a topic (no
 * question) is its own subject. A deterministic function of the question: the same question, the same plan.
 */
final class SimulatedSubQuestions {

    /** About the subject ({@code {s}}; {@code {do}}: do/does as the subject takes, {@code {them}}: them/it). */
    private static final List<String> ABOUT_THE_SUBJECT = List.of(
            "Under which conditions {do} {s} fail, and what happens then?",
            "How {do} {s} compare with the alternatives that solve the same problem?",
            "What do engineers who have deployed {s} report about {them} in practice?",
            "What does it cost to rely on {s}, and who pays it?",
            "What has changed about {s} over the last five years?",
            "Which open problems with {s} does current research work on?");
    /** About the question's claim ({@code {c}}: the question as a statement, "fencing tokens make locks safe"). */
    private static final List<String> ABOUT_THE_CLAIM = List.of(
            "Which mechanism explains how {c}?",
            "What is the strongest evidence that {c}, and how was it measured?");
    /** About what the asker weighs doing ({@code {a}}: the action, "moving a job queue to PostgreSQL"). */
    private static final List<String> ABOUT_A_DECISION = List.of(
            "What does {a} gain, and what does it cost?",
            "Under which conditions is {a} the wrong choice?",
            "What do teams report after {a}?",
            "Which alternatives to {a} are worth weighing, and how do they compare?",
            "What risks does {a} carry, and how can they be reduced?",
            "How much work does {a} take, and what does that depend on?");
    /** About a topic that is no question. */
    private static final List<String> ABOUT_A_TOPIC = List.of(
            "What is the current state of {s}?",
            "What evidence is there on {s}, and how strong is it?");

    private static final Set<String> QUESTION_WORDS = Set.of("how", "what", "why", "which", "when", "where", "who");
    private static final Set<String> PLURAL_AUXILIARIES = Set.of("do", "are", "were", "have");
    private static final Set<String> SINGULAR_AUXILIARIES = Set.of("does", "is", "was", "has");
    private static final Set<String> OTHER_AUXILIARIES = Set.of("did", "can", "could", "should", "would", "will",
            "may", "might", "must", "shall");
    /** Words that start a topic without being part of a name: lower-cased when a sub-question quotes the topic. */
    private static final Set<String> COMMON_FIRST_WORDS = Set.of("the", "a", "an", "some", "any", "our", "my",
            "this", "these", "those");
    /** Subjects that name the asker: such a question weighs an action ("Should we use Kafka?": using Kafka). */
    private static final Set<String> PRONOUNS = Set.of("i", "we", "you", "they", "one", "people");
    /** The asker's possessives, which an action drops for an article ("our job queue": "a job queue"). */
    private static final Set<String> POSSESSIVES = Set.of("my", "our", "your", "their");
    /** Verbs that end a question's subject ("fencing tokens | make ..."), in their base form. */
    private static final Set<String> VERBS = Set.of("make", "keep", "work", "perform", "affect", "change", "cause",
            "prevent", "guarantee", "ensure", "protect", "handle", "scale", "store", "detect", "recover", "replicate",
            "compare", "reduce", "improve", "increase", "decrease", "help", "hurt", "fail", "run", "use", "need",
            "allow", "let", "stop", "avoid", "support", "solve", "differ", "behave", "interact", "influence",
            "limit", "enable", "provide", "produce", "lead", "drive", "cost", "save", "elect", "agree", "order",
            "lock", "survive", "compete", "replace", "become", "stay", "get", "go", "come", "hold");

    private SimulatedSubQuestions() {
    }

    /**
     * @param question the job's question or topic, must not be {@code null}
     * @param count how many sub-questions
     * @return {@code count} different sub-questions (at most as many as there are templates), each ending with a
     *         question mark
     */
    static List<String> of(String question, int count) {
        Reading reading = Reading.of(question);
        List<String> templates = reading.action() != null ? ABOUT_A_DECISION
                : reading.claim() == null ? concat(ABOUT_A_TOPIC, ABOUT_THE_SUBJECT)
                : concat(ABOUT_THE_CLAIM, ABOUT_THE_SUBJECT);
        int first = Math.floorMod(question.strip().toLowerCase(Locale.ROOT).hashCode(), templates.size());
        return java.util.stream.IntStream.range(0, Math.min(count, templates.size()))
                .mapToObj(i -> reading.fill(templates.get((first + i) % templates.size()))).toList();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }

    /**
     * A question read into its parts.
     *
     * @param subject what it is about ("fencing tokens")
     * @param plural whether the subject takes a plural verb
     * @param claim the question as a statement ("fencing tokens make distributed locks safe"), {@code null} for a
     *        topic or a question about a thing ("What is X?")
     * @param action what the asker weighs doing, as a gerund ("moving a job queue to PostgreSQL" for "Should we move
     *        our job queue to PostgreSQL?"), {@code null} for any other question
     */
    record Reading(String subject, boolean plural, String claim, String action) {

        static Reading of(String question) {
            String text = question.strip().replaceAll("[?.!\\s]+$", "");
            List<String> words = Arrays.asList(text.split("\\s+"));
            String first = words.get(0).toLowerCase(Locale.ROOT);
            boolean asks = question.strip().endsWith("?") || QUESTION_WORDS.contains(first)
                    || PLURAL_AUXILIARIES.contains(first) || SINGULAR_AUXILIARIES.contains(first)
                    || OTHER_AUXILIARIES.contains(first);
            if (!asks) {
                return topic(text);
            }
            int at = QUESTION_WORDS.contains(first) ? 1 : 0;
            String auxiliary = at < words.size() ? words.get(at).toLowerCase(Locale.ROOT) : "";
            boolean hasAuxiliary = PLURAL_AUXILIARIES.contains(auxiliary) || SINGULAR_AUXILIARIES.contains(auxiliary)
                    || OTHER_AUXILIARIES.contains(auxiliary);
            List<String> clause = words.subList(Math.min(words.size(), at + (hasAuxiliary ? 1 : 0)), words.size());
            if (clause.isEmpty()) {
                return topic(text);
            }
            if (!hasAuxiliary) { // "What limits sodium-ion batteries": the question word is the subject
                return clause.size() > 1 ? topic(String.join(" ", clause.subList(1, clause.size()))) : topic(text);
            }
            if (at == 1 && (first.equals("what") || first.equals("which") || first.equals("who"))
                    && (auxiliary.equals("is") || auxiliary.equals("are"))) { // "What is the state of X": a thing
                return topic(String.join(" ", clause));
            }
            if (PRONOUNS.contains(clause.get(0).toLowerCase(Locale.ROOT)) && clause.size() > 2) {
                return decision(clause.subList(1, clause.size())); // "Should we use X": about using X
            }
            int split = subjectEnd(clause);
            String subject = lowered(String.join(" ", clause.subList(0, split)));
            boolean plural = PLURAL_AUXILIARIES.contains(auxiliary) || !SINGULAR_AUXILIARIES.contains(auxiliary)
                    && looksPlural(subject);
            String predicate = String.join(" ", clause.subList(split, clause.size()));
            String claim = predicate.isEmpty() ? null : subject + " " + switch (auxiliary) {
                case "do" -> predicate;
                case "does" -> thirdPerson(predicate);
                default -> auxiliary + " " + predicate;
            };
            return new Reading(subject, plural, claim, null);
        }

        private static Reading topic(String topic) {
            String subject = lowered(topic);
            return new Reading(subject, looksPlural(subject), null, null);
        }

        /** @return the reading of an action ("move our job queue to X"): "moving a job queue to X" */
        private static Reading decision(List<String> predicate) {
            StringBuilder action = new StringBuilder(gerund(predicate.get(0).toLowerCase(Locale.ROOT)));
            for (String word : predicate.subList(1, predicate.size())) {
                action.append(' ').append(POSSESSIVES.contains(word.toLowerCase(Locale.ROOT)) ? "a" : word);
            }
            String text = action.toString();
            return new Reading(text, false, null, text);
        }

        /** @return how many words of the clause are its subject: up to a known verb, else a name or two words */
        private static int subjectEnd(List<String> clause) {
            for (int i = 1; i < clause.size(); i++) {
                if (VERBS.contains(clause.get(i).toLowerCase(Locale.ROOT))) {
                    return i;
                }
            }
            String first = clause.get(0);
            boolean article = COMMON_FIRST_WORDS.contains(first.toLowerCase(Locale.ROOT));
            int words = Character.isUpperCase(first.charAt(0)) && !article ? 1 : article ? 3 : 2;
            return Math.min(words, Math.max(1, clause.size() - 1));
        }

        /** @return the sub-question a template makes of this reading */
        String fill(String template) {
            String text = template.replace("{s}", subject).replace("{do}", plural ? "do" : "does")
                    .replace("{them}", plural ? "them" : "it").replace("{a}", action == null ? subject : action);
            return claim == null ? text : text.replace("{c}", claim);
        }
    }

    /** @return the text with its first word lower-cased when it is a common word, not a name */
    private static String lowered(String text) {
        String first = text.split("\\s+", 2)[0];
        String lower = first.toLowerCase(Locale.ROOT);
        boolean common = COMMON_FIRST_WORDS.contains(lower) && first.substring(1).equals(lower.substring(1));
        return common ? lower + text.substring(first.length()) : text;
    }

    private static boolean looksPlural(String subject) {
        String last = subject.substring(subject.lastIndexOf(' ') + 1).toLowerCase(Locale.ROOT);
        return last.endsWith("s") && !last.endsWith("ss") && !last.endsWith("us") && !last.endsWith("is");
    }

    /**
     * @param verb a verb in its base form, lower case
     * @return its gerund: "move" to "moving", "run" to "running", "use" to "using", "see" to "seeing"
     */
    static String gerund(String verb) {
        if (verb.endsWith("ie")) {
            return verb.substring(0, verb.length() - 2) + "ying";
        }
        if (verb.endsWith("e") && !verb.endsWith("ee") && !verb.endsWith("ye") && !verb.endsWith("oe")
                && verb.length() > 2) {
            return verb.substring(0, verb.length() - 1) + "ing";
        }
        boolean shortConsonantVowelConsonant = verb.length() == 3 && verb.matches("[^aeiou][aeiou][^aeiouwxy]");
        return shortConsonantVowelConsonant ? verb + verb.charAt(2) + "ing" : verb + "ing";
    }

    /** @return the predicate with its verb in the third person singular ("make locks safe" to "makes locks safe") */
    private static String thirdPerson(String predicate) {
        String[] parts = predicate.split(" ", 2);
        String verb = parts[0];
        String third = switch (verb) {
            case "have" -> "has";
            case "do" -> "does";
            case "go" -> "goes";
            default -> verb.matches(".*(s|x|z|ch|sh)") ? verb + "es"
                    : verb.matches(".*[^aeiou]y") ? verb.substring(0, verb.length() - 1) + "ies" : verb + "s";
        };
        return parts.length == 1 ? third : third + " " + parts[1];
    }
}

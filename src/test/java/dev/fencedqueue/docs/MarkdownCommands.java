package dev.fencedqueue.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shell commands of a Markdown page: every command of its fenced shell blocks ({@code bash}, {@code sh},
 * {@code shell}, {@code shell script}, {@code console}, or a block without a language whose first line starts like a
 * command), and every inline code span of its prose that is a {@code curl} command. A command ends at the end of a line
 * that neither ends in {@code \} nor leaves a quote open; the comment lines right under it are its documented output.
 */
final class MarkdownCommands {

    private static final Set<String> SHELL = Set.of("bash", "sh", "shell", "shell script", "console", "zsh");
    private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*(.*)$");
    private static final Pattern INLINE_CURL = Pattern.compile("`(curl [^`]+)`");

    private MarkdownCommands() {
    }

    /**
     * @param file the page's name, relative to the project, for messages
     * @param markdown the page's text
     * @return its commands in the order they appear
     */
    static List<DocumentedCommand> of(String file, String markdown) {
        String[] lines = markdown.split("\n", -1);
        List<DocumentedCommand> commands = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            Matcher fence = FENCE.matcher(lines[i]);
            if (!fence.matches()) {
                Matcher inline = INLINE_CURL.matcher(lines[i]);
                while (inline.find()) {
                    commands.add(new DocumentedCommand(file, i + 1, inline.group(1), List.of(), ""));
                }
                continue;
            }
            int end = i + 1;
            while (end < lines.length && !FENCE.matcher(lines[end]).matches()) {
                end++;
            }
            String language = fence.group(1).trim();
            if (SHELL.contains(language) || language.isEmpty() && end > i + 1 && looksLikeCommand(lines[i + 1])) {
                commands.addAll(block(file, lines, i + 1, end));
            }
            i = end;
        }
        return commands;
    }

    private static boolean looksLikeCommand(String line) {
        return line.matches("\\s*(\\./|curl |java |export |[A-Z_]+=).*");
    }

    /** @return the commands of lines {@code [from, to)} of a shell block */
    private static List<DocumentedCommand> block(String file, String[] lines, int from, int to) {
        List<DocumentedCommand> commands = new ArrayList<>();
        StringBuilder header = new StringBuilder();
        for (int h = from; h < to && (lines[h].isBlank() || lines[h].trim().startsWith("#")); h++) {
            header.append(lines[h].trim()).append('\n');
        }
        int i = from;
        while (i < to) {
            String line = lines[i];
            if (line.isBlank() || line.trim().startsWith("#")) {
                i++;
                continue;
            }
            int start = i;
            StringBuilder text = new StringBuilder();
            Quotes quotes = new Quotes();
            while (true) {
                String part = i == start ? line : lines[i];
                quotes.scan(part);
                text.append(i == start ? "" : "\n").append(part);
                i++;
                boolean continued = part.endsWith("\\") || quotes.open();
                if (!continued || i >= to) {
                    break;
                }
            }
            List<String> output = new ArrayList<>();
            while (i < to && lines[i].trim().startsWith("#")) {
                output.add(lines[i].trim().replaceFirst("^#\\s?", ""));
                i++;
            }
            commands.add(new DocumentedCommand(file, start + 1, withoutTrailingComment(text.toString()), output,
                    header.toString().strip()));
        }
        return commands;
    }

    /** @return the command without a comment after it on its last line ({@code cmd &   # follow from B}) */
    static String withoutTrailingComment(String command) {
        Quotes quotes = new Quotes();
        for (int i = 0; i < command.length(); i++) {
            char c = command.charAt(i);
            if (c == '#' && !quotes.open() && i > 0 && Character.isWhitespace(command.charAt(i - 1))) {
                return command.substring(0, i).stripTrailing();
            }
            quotes.step(c);
        }
        return command.stripTrailing();
    }

    /**
     * The words of a command as the shell splits them (quotes removed, backslash-newline joined); enough for the
     * documentation's commands, not a shell.
     *
     * @param command the command
     * @return its words
     */
    static List<String> words(String command) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < command.length(); i++) {
            char c = command.charAt(i);
            if (quote == 0 && c == '\\' && i + 1 < command.length() && command.charAt(i + 1) == '\n') {
                i++;
                continue;
            }
            if (quote == 0 && Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
                continue;
            }
            if (word == null) {
                word = new StringBuilder();
            }
            if (quote == 0 && (c == '\'' || c == '"')) {
                quote = c;
            } else if (c == quote) {
                quote = 0;
            } else {
                word.append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }

    /** Which quote is open, over the characters seen so far. */
    private static final class Quotes {
        private char quote;

        /** Scans one line, up to a comment on it: a quote in a comment ({@code # the fleet's}) opens nothing. */
        void scan(String text) {
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '#' && quote == 0 && (i == 0 || Character.isWhitespace(text.charAt(i - 1)))) {
                    return;
                }
                step(c);
            }
        }

        void step(char c) {
            if (quote == 0 && (c == '\'' || c == '"')) {
                quote = c;
            } else if (c == quote) {
                quote = 0;
            }
        }

        boolean open() {
            return quote != 0;
        }
    }
}

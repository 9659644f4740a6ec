package dev.fencedqueue.docs;

import java.util.List;

/**
 * One shell command of the documentation, as a reader would copy it.
 *
 * @param file the Markdown file it is in, relative to the project, e.g. {@code README.md}
 * @param line the 1-based line it starts on
 * @param text the command as written, continuation lines ({@code \} at a line's end) and quoted line breaks kept,
 *        a trailing comment ({@code   # follow from B}) removed
 * @param output the comment lines right under it, without their {@code # }: what the documentation says it prints
 *        (empty when none)
 * @param blockComment the comment lines at the top of its block, before the block's first command, joined by line
 *        breaks (empty when none, and for a command in the prose)
 */
record DocumentedCommand(String file, int line, String text, List<String> output, String blockComment) {

    /** @return the program the command runs: its first word after any {@code NAME=value} assignments */
    String program() {
        for (String word : MarkdownCommands.words(text)) {
            if (!word.matches("(?s)[A-Za-z_][A-Za-z0-9_]*=.*")) {
                return word;
            }
        }
        return "";
    }

    /** @return where it is, for messages: {@code README.md:57} */
    String where() {
        return file + ":" + line;
    }

    @Override
    public String toString() {
        return where() + ": " + text;
    }
}

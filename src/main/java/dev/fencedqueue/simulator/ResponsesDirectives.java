package dev.fencedqueue.simulator;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.fencedqueue.config.SimulatorConfig.ResponsesStyle;

/**
 * How the simulated Responses API treats one response, as the directives ({@code [sim:<name>]}) in its question (the
 * first user message) and {@code fq.simulator.responses.style} say, so that each behaviour of a real server can be
 * tested with a question.
 *
 * @param comeBack what a client that comes back for a fresh response (not a continuation) meets: {@code gone}
 *        ({@code 404}), {@code failed}, {@code cancelled}, {@code queued} (stuck) or {@code old} (refuses to re-stream);
 *        {@code null} for none
 * @param llamaCpp whether it is served as llama.cpp's server serves one ({@code [sim:llama-cpp]}, or the style
 *        {@code llama-cpp}): no sequence numbers, no retrieval
 * @param unfinished whether each of its streams ends after {@link #UNFINISHED_WORDS} words without a terminal event
 *        ({@code [sim:unfinished]}), as a server that stops short does
 */
record ResponsesDirectives(String comeBack, boolean llamaCpp, boolean unfinished) {

    /** Words an unfinished stream delivers before it ends. */
    static final int UNFINISHED_WORDS = 5;

    private static final Set<String> COME_BACK = Set.of("gone", "failed", "cancelled", "queued", "old");
    private static final Pattern DIRECTIVE = Pattern.compile("\\[sim:([a-z-]+)]");

    /**
     * @param messages the request's input, {@code [role, text]} pairs
     * @param style the simulator's {@code fq.simulator.responses.style}
     * @return the directives of the first user message
     */
    static ResponsesDirectives of(List<String[]> messages, ResponsesStyle style) {
        Set<String> names = new LinkedHashSet<>();
        for (String[] message : messages) {
            if ("user".equals(message[0]) && message[1] != null) {
                Matcher matcher = DIRECTIVE.matcher(message[1]);
                while (matcher.find()) {
                    names.add(matcher.group(1));
                }
                break;
            }
        }
        // Only a fresh answer misbehaves when a client comes back for it: a continuation of one (an assistant message
        // given) behaves.
        boolean continuation = messages.stream().anyMatch(message -> "assistant".equals(message[0]));
        String comeBack = continuation ? null : names.stream().filter(COME_BACK::contains).findFirst().orElse(null);
        return new ResponsesDirectives(comeBack, style == ResponsesStyle.LLAMA_CPP || names.contains("llama-cpp"),
                names.contains("unfinished"));
    }
}

package dev.fencedqueue.llm;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import dev.fencedqueue.Failures;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Finds out, once per model, whether a server continues a trailing assistant message (for {@code fq.llm.resume.mode=auto}):
 * it asks for a known reply of six words with the first three already given as a trailing assistant message, and
 * reads whether the reply goes on with the fourth word (it continues) or starts anew (it opens a new turn, as a chat
 * template that adds a generation prompt does). A server that refuses such a message ({@code 400} or another
 * {@code 4xx} but {@code 401}, {@code 403} and {@code 404}, as Anthropic's Claude 4.6 and later do) does not continue
 * either. The answer is remembered per model for the instance's life; a
 * probe that fails otherwise (the server unavailable) is not remembered, and counts as "does not continue".
 */
@ApplicationScoped
public class ContinuationProbe {

    private static final Logger LOG = Logger.getLogger(ContinuationProbe.class);
    private static final List<String> WORDS = List.of("alpha", "bravo", "charlie", "delta", "echo", "foxtrot");
    private static final int GIVEN = 3;

    private final ChatCompletionsClient chat;
    private final Map<String, Boolean> known = new ConcurrentHashMap<>();

    public ContinuationProbe(ChatCompletionsClient chat) {
        this.chat = chat;
    }

    /**
     * @param jobId the job that needs the answer, sent as {@code X-Request-ID}
     * @return whether the configured model continues a trailing assistant message; never fails
     */
    public Uni<Boolean> continuesTrailingAssistant(String jobId) {
        String model = chat.model();
        Boolean answer = known.get(model);
        if (answer != null) {
            return Uni.createFrom().item(answer);
        }
        return chat.open(chat.probe(WORDS, GIVEN), jobId + ":probe")
                .onItem().transformToUni(chunks -> chunks
                        .map(chunk -> chunk.content() == null ? "" : chunk.content())
                        .collect().with(Collectors.joining()))
                .map(reply -> remember(model, continues(reply), "replied \"" + reply.strip() + "\""))
                // A refusal of the request itself is an answer; one of the caller (401, 403) or of the path (404) is not.
                .onFailure(failure -> failure instanceof LlmRefusedException refused && refused.status() != 401
                        && refused.status() != 403 && refused.status() != 404)
                .recoverWithItem(refusal -> remember(model, false, "refused it: " + Failures.describe(refusal)))
                .onFailure().recoverWithItem(failure -> {
                    LOG.warnf("could not find out whether model %s continues a trailing assistant message: %s; "
                            + "continuing by instruction this time", model, Failures.describe(failure));
                    return false;
                });
    }

    /** @return whether {@code reply} goes on after the given words (it starts with the next one) */
    static boolean continues(String reply) {
        return reply.strip().toLowerCase(Locale.ROOT).startsWith(WORDS.get(GIVEN));
    }

    private boolean remember(String model, boolean continues, String how) {
        known.put(model, continues);
        LOG.infof("model %s %s a trailing assistant message (asked to continue \"%s\", it %s)", model,
                continues ? "continues" : "does not continue", String.join(" ", WORDS.subList(0, GIVEN)), how);
        return continues;
    }
}

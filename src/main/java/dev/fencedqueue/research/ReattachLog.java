package dev.fencedqueue.research;

import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jboss.logging.Logger;

/**
 * Says in the log, once per model of this instance, which way a run that takes over a Responses answer goes on and
 * why: re-attaching to the response the earlier run started (its stream carries sequence numbers), or continuing the
 * answer in a new response because the server's streams carry none or it retrieves no response ({@code 404},
 * {@code 405} or {@code 501} to {@code GET /v1/responses/{id}}). Thread-safe.
 */
final class ReattachLog {

    private static final Logger LOG = Logger.getLogger(ResponsesResearch.class);

    private final Supplier<String> model;
    private final Supplier<URI> url;
    private final Set<String> said = ConcurrentHashMap.newKeySet();

    /**
     * @param model the model the lines name (the one asked now: {@code fq.llm.model})
     * @param url the Responses endpoint the lines name
     */
    ReattachLog(Supplier<String> model, Supplier<URI> url) {
        this.model = model;
        this.url = url;
    }

    /** @param sequenced whether the stream of a new response carries sequence numbers */
    void streamed(boolean sequenced) {
        if (sequenced) {
            say("reattach", "responses stream with sequence numbers: a takeover re-attaches to the response after the "
                    + "last committed event (or continues the answer when the server no longer has it)");
        } else {
            say("unsequenced", "responses stream without sequence numbers: a takeover continues the answer "
                    + "(no re-attach)");
        }
    }

    /** @param status what the server answered to {@code GET /v1/responses/{id}}: 404, 405 or 501 */
    void notRetrieved(int status) {
        say("unretrieved", "GET /v1/responses/{id} answered " + status + " (the server retrieves no response, or "
                + "no longer has this one): a takeover continues the answer (no re-attach)");
    }

    private void say(String path, String why) {
        String name = model.get();
        if (said.add(name + " " + path)) {
            LOG.infof("model %s at %s: %s", name, url.get(), why);
        }
    }
}

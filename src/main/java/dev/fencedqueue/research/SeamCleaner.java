package dev.fencedqueue.research;

import java.util.List;

import dev.fencedqueue.llm.ChatChunk;
import io.smallrye.mutiny.Multi;

/**
 * Cleans the seam where a continuation asked for by instruction meets the committed answer: a model asked to go on
 * "without repeating" often repeats the last words before it goes on, or starts the whole answer again. The cleaner
 * holds the continuation's first text while it could still be a repeat (while it occurs in the committed answer),
 * then drops its longest prefix that is also a suffix of the committed answer (the longest overlap), when that
 * overlap is at least {@link #MIN_OVERLAP} characters (a shorter one is more likely chance than repetition). Text
 * after the seam passes through unchanged. Not thread-safe: the chunks of one stream arrive one after the other.
 */
final class SeamCleaner {

    /** Shortest overlap dropped, in characters. */
    static final int MIN_OVERLAP = 8;
    /** Most characters held while deciding; past it the seam is decided on what was held. */
    static final int MAX_HELD = 64 * 1024;

    private final String committed;
    private final StringBuilder held = new StringBuilder();
    private boolean decided;

    /**
     * @param chunks a continuation asked for by instruction
     * @param committed the committed answer text it follows, must not be {@code null}
     * @return the continuation with its seam cleaned
     */
    static Multi<ChatChunk> clean(Multi<ChatChunk> chunks, String committed) {
        SeamCleaner seam = new SeamCleaner(committed);
        return chunks.onItem().transformToIterable(seam::accept).onCompletion().continueWith(seam::end);
    }

    /** @param committed the committed answer text the continuation follows, must not be {@code null} */
    SeamCleaner(String committed) {
        this.committed = committed;
        this.decided = committed.length() < MIN_OVERLAP;
    }

    /**
     * @param chunk the next chunk of the continuation
     * @return the chunks to pass on: {@code chunk} itself once the seam is decided; while it is held, the chunk
     *         without its text; at the moment the seam is decided, that and a chunk with the held text past the
     *         overlap
     */
    List<ChatChunk> accept(ChatChunk chunk) {
        if (decided || chunk.content() == null || chunk.content().isEmpty()) {
            return List.of(chunk);
        }
        held.append(chunk.content());
        ChatChunk withoutText = chunk.withContent(null);
        if (held.length() < committed.length() && held.length() < MAX_HELD && committed.contains(held)) {
            return List.of(withoutText); // still possibly a repeat of a longer stretch of the committed answer
        }
        return List.of(withoutText, decide());
    }

    /** @return at the continuation's end: the held text past the overlap, when the seam is still undecided */
    List<ChatChunk> end() {
        return decided || held.isEmpty() ? List.of() : List.of(decide());
    }

    private ChatChunk decide() {
        decided = true;
        return new ChatChunk(held.substring(overlap(committed, held)), null, null, null);
    }

    /**
     * @return the length of the longest prefix of {@code continuation} that is a suffix of {@code committed}, when
     *         at least {@link #MIN_OVERLAP}; else 0
     */
    static int overlap(String committed, CharSequence continuation) {
        String text = continuation.toString();
        for (int k = Math.min(committed.length(), text.length()); k >= MIN_OVERLAP; k--) {
            if (committed.regionMatches(committed.length() - k, text, 0, k)) {
                return k;
            }
        }
        return 0;
    }
}

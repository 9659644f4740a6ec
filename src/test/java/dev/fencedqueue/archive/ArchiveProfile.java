package dev.fencedqueue.archive;

import java.util.Map;

import dev.fencedqueue.testing.WorkersOffProfile;

/**
 * The archive on (tests start PostgreSQL), with a grace period so long that no job moves unless a test moves it
 * ({@link Archiver#round}); the archiver's own rounds still run every 250 ms. Research jobs answer over OpenAI's
 * protocol, 300 words in 40-character deltas, at full speed; no worker of the service's own.
 */
public class ArchiveProfile extends WorkersOffProfile {

    @Override
    protected Map<String, String> more() {
        return Map.of("fq.archive.grace", "1h",
                "fq.archive.interval", "250ms",
                "fq.llm.protocol", "openai",
                "fq.simulator.answer.words", "300",
                "fq.simulator.answer.token-interval", "1ms",
                "fq.llm.stream.delta-interval", "1h",
                "fq.llm.stream.delta-chars", "40");
    }
}

package dev.fencedqueue.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** What a reader should see of a job's stream: the current run, and what it continues of earlier runs. */
class ValidHistoryTest {

    private static final long T1 = 1_795_000_000_000L;
    private static final long T2 = T1 + 4_000;
    private static final long T3 = T2 + 4_000;
    /** Stands in for the application's object mapper, which reads a resume event's resume point. */
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aRunThatStartsOverReplacesEverythingBeforeIt() {
        List<JobEvent> stream = List.of(started("1-0", T1), delta("1-1", T1), started("2-0", T2), delta("2-1", T2),
                completed("2-2", T2));

        assertThat(ids(ValidHistory.of(stream, JSON))).containsExactly("2-0", "2-1", "2-2");
    }

    @Test
    void aRunThatContinuesKeepsTheEarlierRunsEventsUpToItsResumePoint() {
        List<JobEvent> stream = List.of(started("1-0", T1), delta("1-1", T1), delta("1-2", T1), started("2-0", T2),
                resume("2-1", T2, "1-2"), delta("2-2", T2), started("3-0", T3), resume("3-1", T3, "2-2"),
                delta("3-2", T3), completed("3-3", T3));

        assertThat(ids(ValidHistory.of(stream, JSON)))
                .containsExactly("1-0", "1-1", "1-2", "2-1", "2-2", "3-1", "3-2", "3-3");
    }

    @Test
    void eventsAfterTheResumePointAreDropped() {
        // Only after Redis lost writes: the stream holds an event after the point the new run was activated at.
        List<JobEvent> stream = List.of(started("1-0", T1), delta("1-1", T1), delta("1-2", T1), started("2-0", T2),
                resume("2-1", T2, "1-1"), delta("2-2", T2));

        assertThat(ids(ValidHistory.of(stream, JSON))).containsExactly("1-0", "1-1", "2-1", "2-2");
    }

    @Test
    void aRunThatHasNotYetSaidWhatItDoesEndsTheListWithItsStart() {
        List<JobEvent> stream = List.of(started("1-0", T1), delta("1-1", T1), started("2-0", T2));

        assertThat(ids(ValidHistory.of(stream, JSON))).containsExactly("1-0", "1-1", "2-0");
    }

    @Test
    void aRunThatRestartsAfterAResumedOneDropsBoth() {
        List<JobEvent> stream = List.of(started("1-0", T1), delta("1-1", T1), started("2-0", T2),
                resume("2-1", T2, "1-1"), delta("2-2", T2), started("3-0", T3), delta("3-1", T3));

        assertThat(ids(ValidHistory.of(stream, JSON))).containsExactly("3-0", "3-1");
    }

    @Test
    void aRunThatContinuesAfterAnEndingDropsThatEnding() {
        // An operator retried a failed job: its next run continues the answer after the earlier run's `failed`.
        List<JobEvent> stream = List.of(started("1-0", T1), delta("1-1", T1), failed("1-2", T1), started("2-0", T2),
                resume("2-1", T2, "1-2"), delta("2-2", T2), completed("2-3", T2));

        assertThat(ids(ValidHistory.of(stream, JSON))).containsExactly("1-0", "1-1", "2-1", "2-2", "2-3");
    }

    @Test
    void aRunThatWroteOnlyItsStartIsKeptWhenANewerRunContinuesIt() {
        List<JobEvent> stream = List.of(started("1-0", T1), started("2-0", T2), resume("2-1", T2, "1-0"),
                delta("2-2", T2));

        assertThat(ids(ValidHistory.of(stream, JSON))).containsExactly("1-0", "2-1", "2-2");
    }

    private static List<String> ids(List<JobEvent> events) {
        return events.stream().map(JobEvent::id).toList();
    }

    private static JobEvent started(String id, long token) {
        return new JobEvent(id, "started", token, JobEventData.of("started", token, "w").toString());
    }

    private static JobEvent delta(String id, long token) {
        return new JobEvent(id, "progress", token, JobEventData.of("progress", token, "w").put("delta", id).toString());
    }

    private static JobEvent completed(String id, long token) {
        return new JobEvent(id, "completed", token, JobEventData.completed(token, "w", "\"done\""));
    }

    private static JobEvent failed(String id, long token) {
        return new JobEvent(id, "failed", token, JobEventData.of("failed", token, "w").put("reason", "boom").toString());
    }

    private static JobEvent resume(String id, long token, String resumeFrom) {
        return new JobEvent(id, "resume", token, JobEventData.resume(token, "w", 2, resumeFrom, "takeover").toString());
    }
}

package dev.fencedqueue.sse;

import dev.fencedqueue.events.JobEvent;

import static dev.fencedqueue.sse.EpochGate.Admission.DROP;
import static dev.fencedqueue.sse.EpochGate.Admission.HOLD;
import static dev.fencedqueue.sse.EpochGate.Admission.RESET_THEN_SEND;
import static dev.fencedqueue.sse.EpochGate.Admission.RESUME;
import static dev.fencedqueue.sse.EpochGate.Admission.SEND;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A reader never sees an older epoch after a newer one, for one reader, including a fencing token that Redis handed
 * out twice.
 */
class EpochGateTest {

    private static final long T1 = 1_795_000_000_000L;
    private static final long T2 = T1 + 4_000;

    @Test
    void resetsBeforeANewerEpochAndDropsOlderOnes() {
        EpochGate gate = new EpochGate(-1);

        assertThat(gate.admit(event("1-0", "started", T1))).isEqualTo(SEND);
        assertThat(gate.admit(event("2-0", "progress", T1))).isEqualTo(SEND);
        assertThat(gate.admit(event("3-0", "started", T2))).as("held until the run says what it does").isEqualTo(HOLD);
        assertThat(gate.admit(event("4-0", "progress", T1))).as("a zombie's event").isEqualTo(DROP);
        assertThat(gate.admit(event("4-1", "progress", T2))).isEqualTo(RESET_THEN_SEND);
        assertThat(gate.released()).as("the held start goes between the reset and the event")
                .isEqualTo(event("3-0", "started", T2));
        assertThat(gate.previousEpoch()).isEqualTo(T1);
        assertThat(gate.admit(event("5-0", "completed", T2))).isEqualTo(SEND);
        assertThat(gate.released()).isNull();
        assertThat(gate.ended()).isTrue();
        assertThat(gate.admit(event("6-0", "progress", T2))).isEqualTo(DROP);
    }

    @Test
    void resetsWhenANewAttemptStartsUnderTheEpochAlreadyShown() {
        EpochGate gate = new EpochGate(-1);
        gate.admit(event("1-0", "started", T2));
        gate.admit(event("2-0", "progress", T2));

        // Redis lost this run's activation and handed its token out again (its clock behind the lost one's).
        assertThat(gate.admit(event("3-0", "started", T2))).isEqualTo(HOLD);
        assertThat(gate.admit(event("4-0", "progress", T2))).isEqualTo(RESET_THEN_SEND);
        assertThat(gate.previousEpoch()).isEqualTo(T2);
        assertThat(gate.admit(event("5-0", "progress", T2))).isEqualTo(SEND);
    }

    @Test
    void aClientResumingInsideAnEpochIsResetByANewAttemptUnderIt() {
        EpochGate gate = new EpochGate(T2);

        assertThat(gate.admit(event("3-0", "started", T2))).isEqualTo(HOLD);
        assertThat(gate.admit(event("3-1", "progress", T2))).isEqualTo(RESET_THEN_SEND);
        assertThat(new EpochGate(T2).admit(event("3-0", "progress", T2))).isEqualTo(SEND);
    }

    @Test
    void aClientWhosePositionTheStreamLostStartsOverWithAReset() {
        EpochGate gate = EpochGate.afterUnknownPosition();

        assertThat(gate.admit(event("9-0", "started", T1))).isEqualTo(HOLD);
        assertThat(gate.admit(event("9-1", "progress", T1))).isEqualTo(RESET_THEN_SEND);
        assertThat(gate.previousEpoch()).isEqualTo(-1);
        assertThat(gate.admit(event("9-2", "progress", T1))).isEqualTo(SEND);
        assertThat(gate.admit(event("9-3", "started", T2))).isEqualTo(HOLD);
        assertThat(gate.admit(event("9-4", "progress", T2))).isEqualTo(RESET_THEN_SEND);
    }

    @Test
    void aFirstStartedEventIsSentWithoutAReset() {
        EpochGate gate = new EpochGate(-1);

        assertThat(gate.admit(event("1-0", "started", T1))).isEqualTo(SEND);
        assertThat(new EpochGate(-1).admit(event("1-0", "aborted", 0))).as("an abort before any run").isEqualTo(SEND);
    }

    @Test
    void aRunThatContinuesIsAnnouncedByItsResumeInsteadOfAReset() {
        EpochGate gate = new EpochGate(-1);
        gate.admit(event("1-0", "started", T1));
        gate.admit(event("2-0", "progress", T1));

        assertThat(gate.admit(event("3-0", "started", T2))).isEqualTo(HOLD);
        assertThat(gate.admit(event("3-1", "resume", T2))).isEqualTo(RESUME);
        assertThat(gate.released()).as("the held start is not sent").isNull();
        assertThat(gate.admit(event("3-2", "progress", T2))).isEqualTo(SEND);
        assertThat(gate.admit(event("3-3", "progress", T1))).as("a zombie's event").isEqualTo(DROP);
    }

    @Test
    void aNewerRunThatStartsBeforeTheHeldOneWroteReplacesIt() {
        EpochGate gate = new EpochGate(T1);
        long t3 = T2 + 4_000;

        assertThat(gate.admit(event("3-0", "started", T2))).isEqualTo(HOLD);
        assertThat(gate.admit(event("4-0", "started", t3))).isEqualTo(HOLD);
        assertThat(gate.admit(event("4-1", "progress", T2))).as("the replaced run's late event").isEqualTo(DROP);
        assertThat(gate.admit(event("4-2", "resume", t3))).isEqualTo(RESUME);
        assertThat(gate.previousEpoch()).isEqualTo(T1);
    }

    @Test
    void aReaderThatReconnectsAtTheHeldStartGetsTheResume() {
        EpochGate gate = new EpochGate(T1); // its last event was the earlier run's; the replay begins after the start

        assertThat(gate.admit(event("3-1", "resume", T2))).isEqualTo(RESUME);
        assertThat(EpochGate.afterUnknownPosition().admit(event("3-1", "resume", T2)))
                .as("Redis lost the reader's last event, which came after the resume point").isEqualTo(RESUME);
    }

    private static JobEvent event(String id, String type, long token) {
        return new JobEvent(id, type, token, "{\"status\":\"" + type + "\",\"fencingToken\":" + token + "}");
    }
}

package dev.fencedqueue.testing;

import static io.restassured.RestAssured.given;

import dev.fencedqueue.simulator.SimulatorStats;

/** Reads {@code GET /simulator/stats}: the research streams the built-in simulator served for one job. */
public final class SimulatorStreams {

    private static final SimulatorStats.Counts NONE = new SimulatorStats.Counts(0, 0, 0);

    private SimulatorStreams() {
    }

    /**
     * @param jobId the job id the processor sent with its research call
     * @return the streams opened, completed and closed early by the client for that job (zeros when none)
     */
    public static SimulatorStats.Counts of(String jobId) {
        SimulatorStats.Snapshot snapshot = given().get("/simulator/stats").then().statusCode(200).extract()
                .as(SimulatorStats.Snapshot.class);
        return snapshot.jobs().getOrDefault(jobId, NONE);
    }
}

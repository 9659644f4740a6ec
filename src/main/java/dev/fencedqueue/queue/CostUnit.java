package dev.fencedqueue.queue;

/**
 * What fair dispatch charges a tenant for a job of a queue ({@code JobProcessor.costUnit()}), stored as the queue
 * meta hash's {@code costUnit} ({@code fairShare.lua} reads it; absent means slot time).
 */
public enum CostUnit {
    /** Milliseconds a job holds a worker slot, measured by Redis's clock from activation to its end. */
    SLOT_TIME("ms"),
    /** LLM tokens, prompt and completion, as the job's attempts report them while they stream and when they end. */
    TOKENS("tokens");

    private final String value;

    CostUnit(String value) {
        this.value = value;
    }

    /** @return the value in the queue's meta hash: {@code ms} or {@code tokens} */
    public String value() {
        return value;
    }
}

package dev.fencedqueue.llm.budget;

/**
 * The limits set for an LLM budget; 0 stands for no limit.
 *
 * @param requestsPerMinute requests per minute, 0 or more
 * @param tokensPerMinute tokens per minute (prompt and answer), 0 or more
 * @param maxConcurrent calls at once, 0 or more
 */
public record BudgetLimits(long requestsPerMinute, long tokensPerMinute, long maxConcurrent) {

    /** No limit at all. */
    public static final BudgetLimits NONE = new BudgetLimits(0, 0, 0);

    public BudgetLimits {
        if (requestsPerMinute < 0 || tokensPerMinute < 0 || maxConcurrent < 0) {
            throw new IllegalArgumentException("budget limits must be 0 (none) or more");
        }
    }
}

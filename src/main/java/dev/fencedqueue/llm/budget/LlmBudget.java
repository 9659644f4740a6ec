package dev.fencedqueue.llm.budget;

import java.time.Duration;

import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.redis.LuaScripts;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The LLM budgets the fleet shares, kept in Redis (one per endpoint and model, {@link BudgetKey}): requests and tokens
 * per minute and calls at once. A call reserves its share before it starts ({@link #reserve}), renews its lease while
 * it streams ({@link #renew}), settles it with the usage the server reported once it ended ({@link #settle}); the
 * provider's rate-limit headers correct the budget as they arrive ({@link #correct}), and its {@code 429} or
 * {@code 503} with a time to wait pauses every instance's calls ({@link #pause}); a call that finds the server down
 * opens the fleet's circuit ({@link #open}) until a call succeeds ({@link #close}). Each limit is a GCRA cell with a minute's burst ({@code llmBudget.lua}), one script per transition.
 * Every method fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable.
 */
@ApplicationScoped
public class LlmBudget {

    private final LuaScripts scripts;
    private final String keyPrefix;

    public LlmBudget(LuaScripts scripts, RedisKeysConfig keys) {
        this.scripts = scripts;
        this.keyPrefix = keys.keyPrefix();
    }

    /**
     * Reserves a call's share: a request, {@code tokens}, and a place among the calls in flight, all or nothing. The
     * jobs whose calls the budget held back for want of room (requests, tokens or calls at once) wait in line, in the
     * order they were first held back, each holding its place for its wait and a grace of 3 s; only the first in line
     * may be reserved, so that a fresh job does not take the freed call from one that waits in the queue
     * ({@code reserveLlmBudget.lua}). A call behind others in line is held back with reason {@code line}, until the
     * first in line is due to call again and 250 ms more.
     *
     * @param key the budget
     * @param limits its limits (the provider's, as its headers gave them, apply when smaller)
     * @param tokens the tokens the call may use: its prompt's, estimated, and its {@code max_tokens} (0 or more)
     * @param leaseId the call's id, unique; the lease is let go by {@link #settle}, or when it runs out
     * @param lease how long the lease holds unless renewed ({@link #renew}): a lease that runs out (its instance died)
     *        frees its place, its tokens stay spent
     * @param unavailableTimeout how long the fleet waits for a server that refuses or fails every call
     *        ({@code fq.llm.outage.timeout}): past it, a call that would wait for it is told {@code unavailable}
     * @param jobId the job the call is for, or {@code null} for none (the call then waits behind the line without
     *        joining it)
     * @return whether the call may start, or how long to wait and why
     */
    public Uni<Reservation> reserve(BudgetKey key, BudgetLimits limits, long tokens, String leaseId, Duration lease,
            Duration unavailableTimeout, String jobId) {
        return scripts.run(new ReserveLlmBudgetArgs(key.reserveKeys(keyPrefix), limits, tokens, leaseId, lease,
                unavailableTimeout, jobId)).map(LlmBudget::reservation);
    }

    /**
     * Settles a call that ended: the tokens the provider counted for it replace those it reserved, and it leaves the
     * calls in flight. A call whose reservation a correction from the provider's headers replaced since it was reserved
     * ({@link #correct} raised the budget's token count: the budget holds what the provider counted for it) settles no
     * tokens.
     *
     * @param key the budget
     * @param limits its limits, as reserved
     * @param leaseId the call's id, as reserved
     * @param tokensUsed the tokens the provider counted for it (prompt and answer: the prompt's as the server reported
     *        them, and the request's {@code max_tokens}, which the provider counts whole); -1 when not known (the
     *        reservation then stands)
     * @return whether the call was in flight (false: its lease had run out, and nothing was settled)
     */
    public Uni<Boolean> settle(BudgetKey key, BudgetLimits limits, String leaseId, long tokensUsed) {
        return scripts.run(new SettleLlmBudgetArgs(key.keys(keyPrefix), limits, leaseId, tokensUsed))
                .map(reply -> reply.toInteger() == 1);
    }

    /**
     * Renews the lease of a call in flight, so that a call streaming longer than one lease keeps its place: its
     * instance renews it every third of a lease while the call runs, and an instance that died stops renewing.
     *
     * @param key the budget
     * @param leaseId the call's id, as reserved
     * @param lease how long the lease holds from now (at least 1 ms)
     * @return whether the call was in flight (false: its lease had run out and its place was let go)
     */
    public Uni<Boolean> renew(BudgetKey key, String leaseId, Duration lease) {
        return scripts.run(new RenewLlmLeaseArgs(key.keys(keyPrefix).subList(1, 2), leaseId, lease))
                .map(reply -> reply.toInteger() == 1);
    }

    /**
     * Corrects the budget with what the provider said of its limits: its limits apply when smaller than {@code limits},
     * and what the budget admits comes down to what it says remains (never up), to the millisecond when it says when its
     * limit is full again. Tokens brought down this way replace the reservations of the calls in flight, which then
     * settle nothing ({@link #settle}).
     *
     * @param key the budget
     * @param limits its configured limits
     * @param provider what the provider's last answer said
     * @return the requests and the tokens the budget admits now, -1 for a limit there is not
     */
    public Uni<long[]> correct(BudgetKey key, BudgetLimits limits, ProviderLimits provider) {
        return scripts.run(new CorrectLlmBudgetArgs(key.keys(keyPrefix).subList(0, 1), limits, provider))
                .map(reply -> new long[] {reply.get(0).toLong(), reply.get(1).toLong()});
    }

    /**
     * Pauses every instance's new calls of the budget, as the provider asked; a pause never shortens one under way.
     * The server counts as unavailable from then until a call's success ({@link #close}).
     *
     * @param key the budget
     * @param wait how long from now (the caller adds its jitter), 0 or more
     * @return how long calls wait from now, and how long the server has been unavailable
     */
    public Uni<Outage> pause(BudgetKey key, Duration wait) {
        return scripts.run(new PauseLlmBudgetArgs(key.keys(keyPrefix).subList(0, 1), wait)).map(LlmBudget::outage);
    }

    /**
     * Opens the fleet's circuit of the budget (or keeps it open): a call found the server down. The first failure
     * opens it for {@code delay}; the failure of the probe that follows doubles that, up to {@code maxDelay}; a
     * failure of another call changes nothing.
     *
     * @param key the budget
     * @param leaseId the failed call's lease id (as reserved)
     * @param delay the first interval between probes, above 0
     * @param maxDelay the longest interval between probes, at least {@code delay}
     * @return how long calls wait from now for the next probe (0 or more), and how long the server has been
     *         unavailable
     */
    public Uni<Outage> open(BudgetKey key, String leaseId, Duration delay, Duration maxDelay) {
        return scripts.run(new OpenLlmCircuitArgs(key.keys(keyPrefix).subList(0, 1), leaseId, delay, maxDelay))
                .map(LlmBudget::outage);
    }

    /**
     * Closes the fleet's circuit of the budget: a call succeeded, so every instance's calls start again.
     *
     * @param key the budget
     * @return whether the circuit was open or the server counted as unavailable
     */
    public Uni<Boolean> close(BudgetKey key) {
        return scripts.run(new CloseLlmCircuitArgs(key.keys(keyPrefix).subList(0, 1)))
                .map(reply -> reply.toInteger() == 1);
    }

    /**
     * What the fleet knows of a server that refused or failed a call.
     *
     * @param waitMillis how long calls wait from now, ms (0 or more)
     * @param unavailableMillis how long the server has been refusing or failing calls since its last success, ms
     */
    public record Outage(long waitMillis, long unavailableMillis) {
    }

    private static Outage outage(Response reply) {
        return new Outage(reply.get(0).toLong(), reply.get(1).toLong());
    }

    private static Reservation reservation(Response reply) {
        if (reply.get(0).toInteger() == 1) {
            return new Reservation(true, 0, null, reply.get(1).toLong(), reply.get(2).toLong(),
                    reply.get(3).toInteger() == 1);
        }
        return new Reservation(false, reply.get(1).toLong(), reply.get(2).toString(), -1, -1, false);
    }
}

package dev.fencedqueue.llm.budget;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The LLM budgets the fleet knows, for operators: every instance registers each budget its calls spend
 * ({@link #register}) in one hash, {@code <prefix>:llm-budgets} (budget id -> endpoint and model, a line each), and
 * anyone can read each budget's state ({@link #state}). Every method fails with
 * {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable.
 */
@ApplicationScoped
public class LlmBudgets {

    private final SharedConnection redis;
    private final LuaScripts scripts;
    private final String keyPrefix;
    private final String registry;

    public LlmBudgets(SharedConnection redis, LuaScripts scripts, RedisKeysConfig keys) {
        this.redis = redis;
        this.scripts = scripts;
        this.keyPrefix = keys.keyPrefix();
        this.registry = keys.keyPrefix() + ":llm-budgets";
    }

    /**
     * Registers a budget, so that operators see it ({@link #all}).
     *
     * @param key the budget
     * @return when written
     */
    public Uni<Void> register(BudgetKey key) {
        return redis.send(Request.cmd(Command.HSET).arg(registry).arg(key.id()).arg(key.endpoint() + "\n" + key.model()))
                .replaceWithVoid();
    }

    /** @return every budget any instance registered, by endpoint then model */
    public Uni<List<BudgetKey>> all() {
        return redis.send(Request.cmd(Command.HVALS).arg(registry)).map(reply -> {
            List<BudgetKey> keys = new ArrayList<>();
            if (reply != null) {
                for (Response value : reply) {
                    String[] parts = value.toString().split("\n", 2);
                    keys.add(new BudgetKey(parts[0], parts.length > 1 ? parts[1] : ""));
                }
            }
            keys.sort(Comparator.comparing(BudgetKey::endpoint).thenComparing(BudgetKey::model));
            return keys;
        });
    }

    /**
     * Reads the state of every budget any instance registered, one after the other, without changing them.
     *
     * @param limits this instance's configured limits (the provider's, when smaller, are in force)
     * @return the states, by endpoint then model
     */
    public Multi<BudgetState> states(BudgetLimits limits) {
        return all().onItem().transformToMulti(keys -> Multi.createFrom().iterable(keys))
                .onItem().transformToUniAndConcatenate(key -> state(key, limits));
    }

    /**
     * Reads a budget's state, without changing it.
     *
     * @param key the budget
     * @param limits this instance's configured limits (the provider's, when smaller, are in force)
     * @return the state, at one instant of the Redis clock
     */
    public Uni<BudgetState> state(BudgetKey key, BudgetLimits limits) {
        return scripts.run(new ReadLlmBudgetArgs(key.keys(keyPrefix), limits))
                .map(reply -> new BudgetState(key, reply.get(0).toLong(), reply.get(1).toLong(), reply.get(2).toLong(),
                        reply.get(3).toLong(), reply.get(4).toLong(), reply.get(10).toLong(), reply.get(11).toLong(),
                        limits.maxConcurrent(), reply.get(5).toLong(), reply.get(6).toLong(), reply.get(7).toLong(),
                        reply.get(8).toLong(), reply.get(9).toLong()));
    }
}

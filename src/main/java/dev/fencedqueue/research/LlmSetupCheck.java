package dev.fencedqueue.research;

import java.time.Duration;

import dev.fencedqueue.config.SimulatorConfig;
import dev.fencedqueue.llm.LlmConfig;
import dev.fencedqueue.worker.WorkerConfig;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Checks at startup that research jobs have an LLM that can answer them: the checks of {@link LlmConfig#check}, and
 * those that span the LLM's, the simulator's and the workers' settings, which no constraint of one mapping can hold.
 * It runs first of all startup observers ({@code @Priority(1)}), before any worker takes a job or any queue setting is
 * applied; a bad combination stops start-up with a message that names the options.
 */
@ApplicationScoped
public class LlmSetupCheck {

    private static final Logger LOG = Logger.getLogger(LlmSetupCheck.class);

    void check(@Observes @Priority(1) StartupEvent event, LlmConfig llm, SimulatorConfig simulator,
            WorkerConfig worker) {
        check(llm, simulator, worker.enabled());
    }

    /**
     * Checks the LLM's settings, alone and against the simulator's when the simulator is the LLM.
     *
     * @param llm the LLM settings, must not be {@code null}
     * @param simulator the simulator settings, must not be {@code null}
     * @param workersEnabled whether this instance runs workers ({@code fq.worker.enabled}), research jobs among them
     * @throws IllegalStateException when this instance runs workers and has no LLM at all: {@code fq.llm.url} is empty
     *         and the simulator is off ({@code fq.simulator.enabled}); or {@code fq.llm.url} is empty and the
     *         simulator's pace ({@code fq.simulator.research.step-interval}, or
     * {@code fq.simulator.answer.token-interval}         for {@code openai} and {@code responses}) is not shorter than
     * {@code fq.llm.stream.idle-timeout}; or         {@link LlmConfig#check} fails
     */
    public static void check(LlmConfig llm, SimulatorConfig simulator, boolean workersEnabled) {
        boolean simulated = llm.url().filter(url -> !url.isBlank()).isEmpty();
        if (simulated && !simulator.enabled()) {
            if (workersEnabled) {
                // A pod that would accept research jobs and never run them must not become ready.
                throw new IllegalStateException("no LLM for research jobs: `fq.llm.url` is empty and the built-in "
                        + "simulator is off (`fq.simulator.enabled`); set `fq.llm.url` to an LLM server (or "
                        + "`fq.simulator.enabled=true`), or turn this instance's workers off "
                        + "(`fq.worker.enabled=false`)");
            }
            LOG.info("no LLM server (`fq.llm.url` is empty, `fq.simulator.enabled` is off): this instance runs no "
                    + "workers, so it only accepts and serves research jobs");
        }
        LlmConfig.check(llm);
        boolean openai = llm.protocol() != LlmConfig.Protocol.RESEARCH;
        String paceName = openai ? "fq.simulator.answer.token-interval" : "fq.simulator.research.step-interval";
        Duration pace = openai ? simulator.answer().tokenInterval() : simulator.research().stepInterval();
        Duration idleTimeout = llm.stream().idleTimeout();
        if (simulated && pace.compareTo(idleTimeout) >= 0) {
            throw new IllegalStateException("`" + paceName + "` (" + pace + ") must be shorter than "
                    + "`fq.llm.stream.idle-timeout` (" + idleTimeout + "), or every simulated research job fails as "
                    + "silent");
        }
    }
}

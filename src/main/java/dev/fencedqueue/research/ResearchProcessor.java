package dev.fencedqueue.research;

import java.util.Optional;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.llm.LlmWaitException;
import dev.fencedqueue.queue.CostUnit;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.RateLimitedException;
import dev.fencedqueue.worker.UnrecoverableJobException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The flagship processor, of the research queue ({@code fq.research.queue}). A plain research job
 * ({@link ResearchRequest}) is one answer of the LLM ({@link AnswerProtocol}), which a run that took the job over may
 * continue; a deep one ({@code "mode": "deep"}) is a flow of a plan, child research jobs and a report
 * ({@link DeepResearch}).
 */
@ApplicationScoped
public class ResearchProcessor implements JobProcessor {

    private final AnswerProtocol answers;
    private final DeepResearch deep;
    private final ResearchConfig config;

    public ResearchProcessor(AnswerProtocol answers, DeepResearch deep, ResearchConfig config) {
        this.answers = answers;
        this.deep = deep;
        this.config = config;
    }

    @Override
    public String queue() {
        return config.queue();
    }

    /**
     * Research jobs cost what they spend with the LLM, a deep research a hundred plain answers: its tokens, in a
     * protocol that reports them ({@link AnswerProtocol#countsTokens()}); in the {@code research} protocol, which
     * reports none, the time they hold a worker slot.
     */
    @Override
    public CostUnit costUnit() {
        return answers.countsTokens() ? CostUnit.TOKENS : CostUnit.SLOT_TIME;
    }

    /** @return {@link ResearchRequest}: a job added over the API is checked as {@code POST /research/start} checks it */
    @Override
    public Optional<Class<?>> dataType() {
        return Optional.of(ResearchRequest.class);
    }

    /**
     * @return the options of {@code POST /research/start}'s jobs ({@link ResearchJobs#options}: {@code fq.research.*}
     *         attempts, backoff, timeout and retention), so that a research job of a flow gets the same
     */
    @Override
    public JobOptions defaultOptions() {
        return ResearchJobs.options(config);
    }

    /**
     * @return the answer, or the deep research's report; an LLM call that cannot go on yet ({@link LlmWaitException}:
     *         the fleet's LLM budget, a server that asked to wait or is down) fails the attempt with
     *         {@link RateLimitedException} of the same wait, so that the job waits in the queue without counting an
     *         attempt
     */
    @Override
    public Uni<Object> process(JobContext context) {
        ResearchRequest request = context.data(ResearchRequest.class);
        if (request == null || request.query() == null || request.query().isBlank()) {
            throw new UnrecoverableJobException("job `" + context.jobId() + "` has no query: a research job's data "
                    + "must be {\"query\": \"...\"}");
        }
        Uni<Object> run = request.deep() ? deep.run(context, request.query())
                : answers.answer(context, request.query(), true);
        return run.onFailure(LlmWaitException.class).transform(wait -> new RateLimitedException(
                ((LlmWaitException) wait).waitTime(), wait.getMessage()));
    }
}

package dev.fencedqueue.research;

import dev.fencedqueue.worker.JobContext;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Answers a question as a job's published output, in the protocol {@code fq.llm.protocol} names
 * ({@link AnswerProtocol}). {@code research}: relays each progress line of the research LLM as a fenced
 * {@code progress} event; the summary becomes the result ({@code {"summary": ...}}). {@code openai}:
 * {@link ChatResearch}. {@code responses}: {@link ResponsesResearch}. When the worker cancels the job (its token went
 * stale, it was aborted, the instance stops), the LLM stream is cancelled and its HTTP connection closed.
 */
@ApplicationScoped
public class ResearchAnswers {

    private final AnswerProtocol protocol;

    public ResearchAnswers(AnswerProtocol protocol) {
        this.protocol = protocol;
    }

    /**
     * @param context the attempt, must not be {@code null}
     * @param question the question, must not be {@code null}
     * @param mayContinue whether this run may continue an answer that earlier runs committed ({@code openai} and
     *        {@code responses}; the run then announces {@code resume} itself); {@code false} starts the answer
     * @return the job's result; fails as the LLM call or a fenced write fails
     */
    public Uni<Object> answer(JobContext context, String question, boolean mayContinue) {
        return protocol.answer(context, question, mayContinue);
    }
}

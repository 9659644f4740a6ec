package dev.fencedqueue.research;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.Failures;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.JobKey;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.queue.ParentPolicy;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.UnrecoverableJobException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A deep research job, a flow (BullMQ's parent and child jobs) run as the parent's steps:
 * <ol>
 * <li><b>plan</b>: says so first (a {@code progress} event, {@code phase: "planning"}), asks the LLM for at most
 * {@code fq.research.deep.sub-questions} sub-questions ({@link AnswerProtocol#ask}, streamed), publishes each
 * sub-question as its line is written ({@link PlanningProgress}: more {@code planning} events), then announces them in
 * a fenced {@code plan} event ({@code subQuestions: [{key, jobId, query}]}); the plan's tokens count as an attempt
 * that ended with its result ({@link LlmTokens}). A run that takes the job over before the plan event plans again
 * (its reader gets a {@code reset});</li>
 * <li><b>research</b>: adds one child research job per sub-question in the research queue, fenced, with ids
 * {@code <parentId>:q1}, {@code :q2}, ... (a run that took over adds none again), and parks in
 * {@code waiting-children};</li>
 * <li><b>report</b>: once every child ended (the parent runs again, a new epoch), asks the LLM for the report from the
 * children's answers and publishes it as any research answer is published ({@link AnswerProtocol#answer}); the report
 * is the job's result. A child that failed for good is left out of the report ({@link ParentPolicy#IGNORE}); when
 * every child failed, so does the job.</li>
 * </ol>
 * Every run after the plan continues the job's events ({@code resume}): a reader keeps the plan, and, when a run took
 * the job over during the report, the committed part of the report (as {@link ChatResearch} continues it).
 */
@ApplicationScoped
public class DeepResearch {

    private final ResearchConfig config;
    private final AnswerProtocol answers;
    private final LlmTokens tokens;
    private final ObjectMapper json;

    public DeepResearch(ResearchConfig config, AnswerProtocol answers, LlmTokens tokens, ObjectMapper json) {
        this.config = config;
        this.answers = answers;
        this.tokens = tokens;
        this.json = json;
    }

    /**
     * Runs the step the job is at.
     *
     * @param context the attempt, must not be {@code null}
     * @param query the job's question, must not be {@code null}
     * @return the report's result, as {@link AnswerProtocol#answer} shapes it; fails with
     *         {@link dev.fencedqueue.worker.WaitingChildrenException} when the job parks until its children end, with
     *         {@link UnrecoverableJobException} when every child failed, and as the LLM calls and fenced writes fail
     */
    public Uni<Object> run(JobContext context, String query) {
        return context.committedEvents().chain(events -> {
            Optional<ResearchPlan> planned = plan(events);
            if (planned.isEmpty()) {
                // Readers show "planning" from the run's first second, not only once the plan is written.
                PlanningProgress planning = new PlanningProgress(context, config.deep().subQuestions());
                return context.progress(0, "planning the research", PlanningProgress.details())
                        .chain(() -> answers.ask(ResearchPlan.planPrompt(config.deep(), query), context.jobId(),
                                context.traceContext(), planning::publish))
                        .call(answer -> account(context, answer))
                        .map(answer -> ResearchPlan.parse(context.jobId(), answer.text(), config.deep().subQuestions()))
                        .call(plan -> context.publish(ResearchPlan.EVENT, plan.eventData()))
                        .chain(plan -> research(context, query, plan, false, events));
            }
            return research(context, query, planned.get(), true, events);
        });
    }

    /**
     * Counts the plan's tokens as an attempt of the job that ended with its result (the plan), as the report's are
     * counted: in the job's status, its tenant's token quota and cost, and what fair dispatch charged the tenant for
     * this run (which they settle). Nothing in the {@code research} protocol, which counts no tokens; never fails.
     */
    private Uni<Void> account(JobContext context, AskedText answer) {
        if (answer.usage() == null) {
            return Uni.createFrom().voidItem();
        }
        return tokens.record(config.queue(), context.jobId(), context.fencingToken(), new LlmTokens.Attempt("result",
                answer.usage().promptTokens(), answer.usage().completionTokens(), 0, 0, null));
    }

    /** Adds the children (none again when they exist), waits for them, then writes the report. */
    private Uni<Object> research(JobContext context, String query, ResearchPlan plan, boolean continues,
            List<JobEvent> events) {
        CommittedAnswer committed = CommittedAnswer.of(events, json);
        // A run that will continue a committed report lets the report announce it; any other later run announces here.
        boolean reportContinues = continues && committed.hasText();
        Uni<Void> announced = continues && !reportContinues ? context.resume().replaceWithVoid()
                : Uni.createFrom().voidItem();
        return announced.chain(() -> context.addChildren(children(plan)))
                .chain(added -> context.moveToWaitingChildren())
                .chain(() -> Uni.combine().all().unis(context.childrenValues(), context.failedChildren()).asTuple())
                .chain(children -> {
                    Map<String, String> findings = findings(children.getItem1());
                    if (findings.isEmpty()) {
                        throw new UnrecoverableJobException("every sub-question failed: "
                                + String.join("; ", children.getItem2().values()));
                    }
                    return answers.answer(context, plan.reportPrompt(config.deep(), query, findings), reportContinues);
                });
    }

    /**
     * What a deep research job's flow stream follows besides the job ({@code GET /research/stream/{jobId}/flow}).
     *
     * @param event an event of a research job, must not be {@code null}
     * @param json the application's object mapper, which reads the event's data, must not be {@code null}
     * @return the ids of the children a {@code plan} event announces, in the plan's order; empty for any other event
     *         (and for a {@code plan} whose data cannot be read)
     */
    public static List<String> childrenAnnounced(JobEvent event, ObjectMapper json) {
        if (!ResearchPlan.EVENT.equals(event.type())) {
            return List.of();
        }
        try {
            return ResearchPlan.of(json.readTree(event.data())).subQuestions().stream()
                    .map(ResearchPlan.SubQuestion::jobId).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** @return the plan the job's committed events announced, if one did */
    private Optional<ResearchPlan> plan(List<JobEvent> events) {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (ResearchPlan.EVENT.equals(events.get(i).type())) {
                return Optional.of(ResearchPlan.of(read(events.get(i).data())));
            }
        }
        return Optional.empty();
    }

    private List<FlowJob> children(ResearchPlan plan) {
        return plan.subQuestions().stream()
                .map(sub -> FlowJob.of(config.queue(), "research", json.createObjectNode().put("query", sub.query()))
                        .withKey(sub.key()).withPolicy(ParentPolicy.IGNORE).withOptions(ResearchJobs.options(config)))
                .toList();
    }

    /** @return child job id -> the text of its answer ({@code text} or {@code summary} of its result) */
    private Map<String, String> findings(Map<String, String> values) {
        Map<String, String> findings = new HashMap<>();
        values.forEach((key, value) -> {
            JsonNode result = read(value);
            String text = result.hasNonNull("text") ? result.get("text").asText()
                    : result.hasNonNull("summary") ? result.get("summary").asText() : value;
            findings.put(JobKey.parse(key).jobId(), text);
        });
        return findings;
    }

    private JsonNode read(String data) {
        try {
            return json.readTree(data);
        } catch (IOException e) {
            throw new IllegalStateException("a stored value is not JSON: " + Failures.describe(e), e);
        }
    }
}

package dev.fencedqueue.research;

import java.util.List;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.worker.JobContext;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * What a deep research job publishes while its plan is written ({@link AnswerProtocol#ask} with a draft handler): a
 * fenced {@code progress} event with {@code phase: "planning"} for each sub-question once its line is complete
 * ({@code key}: {@code q1}, {@code q2}, ..., the key of the child job that will research it; {@code subQuestion}: its
 * text, as the {@code plan} event will name it), and, in the {@code research} protocol, whose plan comes whole at the
 * end, one for each step the server reports ({@code message}: the step). All of them come before the {@code plan}
 * event, in the order they were written. One per attempt: it counts the sub-questions it published.
 */
final class PlanningProgress {

    /** The phase of every event published here. */
    static final String PHASE = "planning";

    private final JobContext context;
    private final int max;
    private int published;

    /**
     * @param context the attempt that plans, must not be {@code null}
     * @param max most sub-questions of the plan ({@code fq.research.deep.sub-questions})
     */
    PlanningProgress(JobContext context, int max) {
        this.context = context;
        this.max = max;
    }

    /** @return the details of a planning event: {@code phase: "planning"} */
    static ObjectNode details() {
        return JsonNodeFactory.instance.objectNode().put("phase", PHASE);
    }

    /**
     * Publishes what a draft of the plan adds: the sub-questions of its lines completed since the last draft (of the
     * whole plan: all its lines), or the server's step.
     *
     * @param draft the plan so far, must not be {@code null}
     * @return done once the events are written; fails as a fenced write fails (a stale token)
     */
    Uni<Void> publish(AskedText draft) {
        if (draft.activity() != null) {
            return context.progress(0, draft.activity(), details()).replaceWithVoid();
        }
        String complete = draft.whole() ? draft.text() : draft.text().substring(0, draft.text().lastIndexOf('\n') + 1);
        List<String> lines = ResearchPlan.lines(complete, max);
        if (lines.size() <= published) {
            return Uni.createFrom().voidItem();
        }
        int from = published;
        published = lines.size();
        return Multi.createFrom().items(IntStream.range(from, lines.size()).boxed())
                .onItem().transformToUniAndConcatenate(i -> context.progress(0, "planning: " + lines.get(i),
                        details().put("key", "q" + (i + 1)).put("subQuestion", lines.get(i))))
                .collect().last().replaceWithVoid();
    }
}

package dev.fencedqueue.research;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * The data of a research job, and the body of {@code POST /research/start}.
 *
 * @param query what to research: not blank, at most {@value #MAX_QUERY_LENGTH} characters
 * @param mode {@code plain} (one LLM answer, the default when {@code null}) or {@code deep} (a flow: a plan, one child
 *        job per sub-question, then a report; see {@link DeepResearch}); a job's data leaves it out when it is
 *        {@code null}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ResearchRequest(
        @NotBlank(message = "`query` must not be blank")
        @Size(max = ResearchRequest.MAX_QUERY_LENGTH, message = "`query` must be at most {max} characters") String query,
        @Pattern(regexp = "plain|deep", message = "`mode` must be `plain` or `deep`") String mode) {

    /** Longest accepted query, in characters. */
    public static final int MAX_QUERY_LENGTH = 4000;

    /**
     * @param query what to research, as for the canonical constructor; a plain research job. Not a JSON creator: a
     *        JSON string is not a research request, only an object with a {@code query} is
     */
    @JsonCreator(mode = JsonCreator.Mode.DISABLED)
    public ResearchRequest(String query) {
        this(query, null);
    }

    /** @return whether this is a deep research job (a flow) */
    public boolean deep() {
        return "deep".equals(mode);
    }
}

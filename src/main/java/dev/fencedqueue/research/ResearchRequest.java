package dev.fencedqueue.research;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/**
 * The data of a research job, and the body of {@code POST /research/start}.
 *
 * @param query what to research: not blank, at most {@value #MAX_QUERY_LENGTH} characters
 */
public record ResearchRequest(
        @NotBlank(message = "`query` must not be blank")
        @Size(max = ResearchRequest.MAX_QUERY_LENGTH, message = "`query` must be at most {max} characters") String query) {

    /** Longest accepted query, in characters. */
    public static final int MAX_QUERY_LENGTH = 4000;
}

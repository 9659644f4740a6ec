package dev.fencedqueue.llm.budget;

import java.util.List;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The tokens an LLM call counts against the provider's tokens per minute, as OpenAI's limits count them and the
 * simulator does ({@code fq.simulator.provider.tokens-per-minute}): a request counts its prompt and its most answer tokens
 * ({@code max_tokens}) when the provider admits it, and the tokens of the answer it did not use are not given back
 * (OpenAI's "Rate limits" guide: the limit is computed from {@code max_tokens} and the request's estimated tokens, as
 * the request arrives). The fleet's budget reserves {@link #reserved} before the call and settles it with
 * {@link #charged} once it ended ({@link LlmBudgetGate}), so that it counts what the provider counted: a call settled
 * with the answer it used would give back tokens the provider still counts, and the next call would meet a
 * {@code 429}.
 *
 * @param promptEstimate the prompt's tokens, estimated before the call: a token per 4 characters of the request body
 * @param maxAnswer the request's most answer tokens ({@code max_tokens}, {@code max_completion_tokens} or
 *        {@code max_output_tokens}), -1 when it sets none
 * @param answerEstimate the answer tokens to reserve when the request sets no most ({@code fq.llm.request.max-tokens}, else
 *        {@code fq.llm.budget.answer-tokens}), 0 or more
 */
record CallTokens(long promptEstimate, long maxAnswer, long answerEstimate) {

    /** The request fields that set the most answer tokens: chat completions' (both names), the Responses API's. */
    private static final List<String> MAX_ANSWER = List.of("max_tokens", "max_completion_tokens", "max_output_tokens");

    /**
     * @param body the request body, JSON text; {@code null} for none
     * @param json reads it
     * @param answerEstimate the answer tokens to reserve when the request sets no most, 0 or more
     * @return what the call counts; a body that is not a JSON object sets no most
     */
    static CallTokens of(String body, ObjectMapper json, long answerEstimate) {
        if (body == null) {
            return new CallTokens(0, -1, answerEstimate);
        }
        long maxAnswer = -1;
        try {
            JsonNode request = json.readTree(body);
            for (String field : MAX_ANSWER) {
                JsonNode most = request == null ? null : request.get(field);
                if (most != null && most.canConvertToLong() && most.asLong() >= 0) {
                    maxAnswer = most.asLong();
                    break;
                }
            }
        } catch (JacksonException e) {
            // not JSON: the answer estimate applies
        }
        return new CallTokens(body.length() / 4, maxAnswer, answerEstimate);
    }

    /** @return the tokens to reserve before the call: the prompt's estimate and the most answer tokens */
    long reserved() {
        return promptEstimate + (maxAnswer >= 0 ? maxAnswer : answerEstimate);
    }

    /**
     * @param used the tokens the call used, prompt and answer, as the server reported them; -1 when not reported
     * @param answerUsed the answer's part of them; -1 when not reported
     * @return what the provider counted for the call: the prompt as reported and the request's most answer tokens, or
     *         the answer as reported when larger or when the request set no most; -1 when the server reported nothing
     *         (the reservation then stands)
     */
    long charged(long used, long answerUsed) {
        if (used < 0) {
            return -1;
        }
        if (maxAnswer < 0 || answerUsed < 0) {
            return used;
        }
        return used - answerUsed + Math.max(answerUsed, maxAnswer);
    }
}

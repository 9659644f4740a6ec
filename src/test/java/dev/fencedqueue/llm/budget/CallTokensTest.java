package dev.fencedqueue.llm.budget;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * What a call reserves of the fleet's token budget and what it is charged once it ended ({@link CallTokens}): the
 * request's {@code max_tokens} is counted whole, as the provider counts it, however short the answer.
 */
class CallTokensTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** 80 characters: 20 tokens of prompt, estimated. */
    private static final String PROMPT = "{\"messages\": [{\"role\": \"user\", \"content\": \"what limits the calls?\"}], ";

    @Test
    void reservesThePromptsEstimateAndTheRequestsMaxTokens() {
        CallTokens tokens = CallTokens.of(PROMPT + "\"max_tokens\": 400}", JSON, 1_000);
        assertThat(tokens.maxAnswer()).isEqualTo(400);
        assertThat(tokens.reserved()).isEqualTo((PROMPT.length() + 18) / 4 + 400);
    }

    @Test
    void readsEachNameOfTheMostAnswerTokens() {
        assertThat(CallTokens.of(PROMPT + "\"max_completion_tokens\": 300}", JSON, 1_000).maxAnswer()).isEqualTo(300);
        assertThat(CallTokens.of(PROMPT + "\"max_output_tokens\": 200}", JSON, 1_000).maxAnswer()).isEqualTo(200);
    }

    @Test
    void aShortAnswerIsChargedTheWholeMaxTokensAsTheProviderCountsIt() {
        CallTokens tokens = CallTokens.of(PROMPT + "\"max_tokens\": 400}", JSON, 1_000);
        assertThat(tokens.charged(37 + 300, 300)).as("the prompt reported and the 400 the provider counted")
                .isEqualTo(37 + 400);
    }

    @Test
    void withoutMaxTokensTheAnswerReservedIsTheEstimateAndTheChargeWhatWasReported() {
        CallTokens tokens = CallTokens.of(PROMPT + "\"stream\": true}", JSON, 1_000);
        assertThat(tokens.maxAnswer()).isEqualTo(-1);
        assertThat(tokens.reserved()).isEqualTo((PROMPT.length() + 15) / 4 + 1_000);
        assertThat(tokens.charged(37 + 300, 300)).isEqualTo(37 + 300);
    }

    @Test
    void aServerThatReportsNothingLeavesTheReservationStanding() {
        assertThat(CallTokens.of(PROMPT + "\"max_tokens\": 400}", JSON, 1_000).charged(-1, -1)).isEqualTo(-1);
    }

    @Test
    void aBodyThatIsNotJsonReservesTheAnswerEstimate() {
        assertThat(CallTokens.of("not json at all", JSON, 1_000).reserved()).isEqualTo(15 / 4 + 1_000);
        assertThat(CallTokens.of(null, JSON, 1_000).reserved()).isEqualTo(1_000);
    }
}

package dev.fencedqueue.research;

import dev.fencedqueue.config.LlmConfig;
import dev.fencedqueue.llm.ChatCompletionsClient;
import dev.fencedqueue.llm.ResearchProtocolClient;
import dev.fencedqueue.llm.ResponsesClient;
import dev.fencedqueue.tracing.JobTracing;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The {@link AnswerProtocol} of each value of {@code fq.llm.protocol}, and the one the configuration names, chosen once
 * at startup: the bean that {@link ResearchAnswers} and {@link WholeAnswer} ask.
 */
@ApplicationScoped
public class AnswerProtocols {

    private final ResearchProtocolAnswers research;
    private final ChatCompletionsAnswers openai;
    private final ResponsesAnswers responses;

    public AnswerProtocols(ResearchProtocolClient researchClient, ChatResearch chat, ChatCompletionsClient chatClient,
            ResponsesResearch responsesResearch, ResponsesClient responsesClient, JobTracing tracing) {
        this.research = new ResearchProtocolAnswers(researchClient, tracing);
        this.openai = new ChatCompletionsAnswers(chat, chatClient, tracing);
        this.responses = new ResponsesAnswers(responsesResearch, responsesClient, tracing);
    }

    /**
     * @param protocol a value of {@code fq.llm.protocol}, must not be {@code null}
     * @return its implementation
     */
    public AnswerProtocol of(LlmConfig.Protocol protocol) {
        return switch (protocol) {
            case RESEARCH -> research;
            case OPENAI -> openai;
            case RESPONSES -> responses;
        };
    }

    /** @return the protocol {@code fq.llm.protocol} names, as read at startup */
    @Produces
    @Singleton
    @Startup
    AnswerProtocol configured(LlmConfig config) {
        return of(config.protocol());
    }
}

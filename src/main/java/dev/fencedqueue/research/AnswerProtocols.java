package dev.fencedqueue.research;

import dev.fencedqueue.llm.LlmConfig;
import dev.fencedqueue.llm.ResearchProtocolClient;
import dev.fencedqueue.tracing.JobTracing;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The {@link AnswerProtocol} of each value of {@code fq.llm.protocol}, and the one the configuration names, chosen once
 * at startup: the bean that {@link ResearchProcessor} and {@link DeepResearch} ask.
 */
@ApplicationScoped
public class AnswerProtocols {

    private final ResearchProtocolAnswers research;
    private final ChatResearch openai;
    private final ResponsesResearch responses;

    public AnswerProtocols(ResearchProtocolClient researchClient, ChatResearch openai, ResponsesResearch responses,
            JobTracing tracing) {
        this.research = new ResearchProtocolAnswers(researchClient, tracing);
        this.openai = openai;
        this.responses = responses;
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

package dev.fencedqueue.llm;

/**
 * How a request asks an OpenAI-compatible server to continue an answer that was cut off
 * ({@link ChatCompletionsClient#continuation}, {@link ResponsesClient#continuation}).
 */
public enum ContinuationStyle {

    /**
     * The committed answer as the last message, an assistant message, which the model continues as its own turn
     * (vLLM's {@code continue_final_message}; llama.cpp's server, Ollama, SGLang, TGI): the continuation follows the
     * committed text exactly.
     */
    TRAILING_ASSISTANT,

    /**
     * The committed answer as an assistant message followed by a user message that asks to continue it; works with
     * any chat model, and the caller cleans the seam of repeated text
     * (the model may repeat the end of what it continues).
     */
    INSTRUCTION
}

package dev.fencedqueue.research;

/** How a run asks an OpenAI-compatible server to continue a committed answer. */
enum ContinuationStyle {

    /**
     * The committed answer as the last message, an assistant message, which the model continues as its own turn
     * (vLLM's {@code continue_final_message}; llama.cpp's server, Ollama, SGLang, TGI): the continuation follows the
     * committed text exactly.
     */
    TRAILING_ASSISTANT,

    /**
     * The committed answer as an assistant message followed by a user message that asks to continue it; works with
     * any chat model, and the seam is cleaned of repeated text ({@link SeamCleaner}).
     */
    INSTRUCTION
}

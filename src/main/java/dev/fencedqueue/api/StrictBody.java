package dev.fencedqueue.api;

import java.lang.reflect.Type;
import java.util.function.BiFunction;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Reads a REST request body strictly: on top of {@link StrictJson}'s rules, a field the body's type does not have is
 * refused ({@code {"query": "x", "moed": "deep"}} is a 400 naming {@code moed}, not a plain job), and so is text after
 * the JSON value ({@code {"query": "x"}}}). Only request bodies
 * are read so (each resource method that takes one says {@code @CustomDeserialization(StrictBody.class)}): stored job
 * data and LLM responses, which may carry fields this version does not know, are read by the application's mapper,
 * which ignores them.
 */
// Instantiated by Quarkus REST from its class name, in the native executable too.
@RegisterForReflection
public class StrictBody implements BiFunction<ObjectMapper, Type, ObjectReader> {

    @Override
    public ObjectReader apply(ObjectMapper mapper, Type type) {
        return mapper.readerFor(mapper.constructType(type)).with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
                DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }
}

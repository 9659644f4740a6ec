package dev.fencedqueue.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.llm.LlmConfig;
import dev.fencedqueue.config.SimulatorConfig;
import dev.fencedqueue.api.TenancyConfig;
import dev.fencedqueue.worker.WorkerConfig;
import dev.fencedqueue.llm.ChatChunk;
import dev.fencedqueue.llm.LlmSpan;
import dev.fencedqueue.research.AnswerProtocol;
import dev.fencedqueue.research.AnswerProtocols;
import dev.fencedqueue.research.AskedText;
import dev.fencedqueue.worker.JobContext;
import io.opentelemetry.context.Context;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.WithName;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The configuration the tests may change while the application runs ({@link RuntimeProfile}), instead of starting
 * an application of their own with a {@link io.quarkus.test.junit.TestProfile}: the {@code fq.llm.*},
 * {@code fq.simulator.*}, {@code fq.worker.*}, {@code fq.bulk.*} and {@code fq.tenancy.*} settings. In the tests' application each of these config mappings
 * is this bean's view of it, an alternative to Quarkus's: it answers what the configuration says, or the value a test
 * set. The application's code is the same as in production; a setting it reads once at startup (a pool's size, the
 * simulator's on/off switch, the workers it starts) is not changed by this, which {@link RuntimeProfile} checks; the
 * LLM protocol, which the application chooses once at startup, follows {@code fq.llm.protocol} here at each call.
 */
@Singleton
public class SwitchableConfig {

    /** The properties (full names, as in {@code application.properties}) a test class replaced. */
    private volatile Map<String, String> ofClass = Map.of();
    /** Those, and the ones the running test replaced. */
    private volatile Map<String, String> overrides = Map.of();

    /**
     * Replaces the values of some properties until {@link #reset()}: a test class's ({@link RuntimeProfile}).
     *
     * @param values full property names ({@code fq.llm.protocol}) to their values, as they would be written in
     *        {@code application.properties}; must not be {@code null}
     */
    public void override(Map<String, String> values) {
        ofClass = Map.copyOf(values);
        overrides = ofClass;
    }

    /**
     * Replaces one more property's value until {@link #endOfTest()}: a test's own change, on top of its class's.
     *
     * @param property the full property name, one that {@link RuntimeProfile} may switch; must not be {@code null}
     * @param value its value, as it would be written in {@code application.properties}; must not be {@code null}
     * @throws IllegalArgumentException when the application reads that property only at startup
     */
    public void adjust(String property, String value) {
        if (!RuntimeProfileExtension.switchable(property, value)) {
            throw new IllegalArgumentException(property + " is read once at startup: it cannot be changed in a test");
        }
        Map<String, String> now = new HashMap<>(overrides);
        now.put(property, value);
        overrides = Map.copyOf(now);
    }

    /** Undoes the running test's {@link #adjust} changes, keeping its class's. */
    public void endOfTest() {
        overrides = ofClass;
    }

    /** Goes back to the configuration's values. */
    public void reset() {
        ofClass = Map.of();
        overrides = ofClass;
    }

    @Produces
    @Alternative
    @Priority(1)
    @Singleton
    LlmConfig llm() {
        return switchable(LlmConfig.class);
    }

    /**
     * The research jobs' LLM protocol as {@code fq.llm.protocol} says at each call, so that a test may switch it: the
     * application chooses it once at startup ({@link AnswerProtocols}), from the same implementations.
     */
    @Produces
    @Alternative
    @Priority(1)
    @Singleton
    AnswerProtocol answerProtocol(AnswerProtocols protocols, LlmConfig llm) {
        return new AnswerProtocol() {

            @Override
            public Uni<Object> answer(JobContext context, String question, boolean mayContinue) {
                return protocols.of(llm.protocol()).answer(context, question, mayContinue);
            }

            @Override
            public LlmSpan span(Context trace) {
                return protocols.of(llm.protocol()).span(trace);
            }

            @Override
            public Uni<AskedText> text(String prompt, String jobId) {
                return protocols.of(llm.protocol()).text(prompt, jobId);
            }

            @Override
            public Multi<AskedText> draft(String prompt, String jobId) {
                return protocols.of(llm.protocol()).draft(prompt, jobId);
            }

            @Override
            public boolean countsTokens() {
                return protocols.of(llm.protocol()).countsTokens();
            }

            @Override
            public OptionalLong costMicros(ChatChunk.Usage usage) {
                return protocols.of(llm.protocol()).costMicros(usage);
            }
        };
    }

    @Produces
    @Alternative
    @Priority(1)
    @Singleton
    SimulatorConfig simulator() {
        return switchable(SimulatorConfig.class);
    }

    @Produces
    @Alternative
    @Priority(1)
    @Singleton
    WorkerConfig worker() {
        return switchable(WorkerConfig.class);
    }

    @Produces
    @Alternative
    @Priority(1)
    @Singleton
    BulkConfig bulk() {
        return switchable(BulkConfig.class);
    }

    @Produces
    @Alternative
    @Priority(1)
    @Singleton
    TenancyConfig tenancy() {
        return switchable(TenancyConfig.class);
    }

    private <T> T switchable(Class<T> type) {
        SmallRyeConfig config = ConfigProvider.getConfig().unwrap(SmallRyeConfig.class);
        return view(type, config.getConfigMapping(type), type.getAnnotation(ConfigMapping.class).prefix(), config);
    }

    /** @return a view of {@code mapped} (a mapping, or one of its groups, under {@code prefix}) with the overrides */
    private <T> T view(Class<T> type, Object mapped, String prefix, SmallRyeConfig config) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> type.getSimpleName() + " (switchable) " + overrides;
                };
            }
            Object value = invoke(method, mapped, args);
            String name = prefix + "." + propertyName(method);
            Map<String, String> now = overrides;
            if (now.containsKey(name)) {
                return convert(now.get(name), method.getGenericReturnType(), config);
            }
            if (method.getReturnType().isInterface() && method.getReturnType().getDeclaringClass() != null
                    && now.keySet().stream().anyMatch(key -> key.startsWith(name + "."))) {
                return view(method.getReturnType(), value, name, config);
            }
            return value;
        }));
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** @return the property name of a mapping's method: its {@code @WithName}, else its name in kebab case */
    private static String propertyName(Method method) {
        WithName name = method.getAnnotation(WithName.class);
        if (name != null) {
            return name.value();
        }
        return method.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    private static Object convert(String value, Type type, SmallRyeConfig config) {
        if (type instanceof ParameterizedType optional && optional.getRawType() == Optional.class) {
            return value.isEmpty() ? Optional.empty()
                    : Optional.of(config.convert(value, (Class<?>) optional.getActualTypeArguments()[0]));
        }
        Class<?> raw = (Class<?>) type;
        Class<?> target = raw.isPrimitive() ? boxed(raw) : raw;
        return config.convert(value, target);
    }

    private static Class<?> boxed(Class<?> primitive) {
        return switch (primitive.getName()) {
            case "int" -> Integer.class;
            case "long" -> Long.class;
            case "double" -> Double.class;
            case "boolean" -> Boolean.class;
            default -> throw new IllegalArgumentException("no conversion to " + primitive);
        };
    }
}

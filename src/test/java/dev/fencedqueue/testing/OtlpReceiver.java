package dev.fencedqueue.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPInputStream;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;

/**
 * A real OTLP/HTTP trace receiver on a free loopback port, for the packaged application's exporter
 * ({@code quarkus.otel.exporter.otlp.traces.protocol=http/protobuf}): it answers {@code POST .../v1/traces} (an
 * {@code ExportTraceServiceRequest} in protobuf, maybe gzipped) as the OTLP specification says, and keeps every span it
 * received, decoded with OpenTelemetry's own protobuf classes. Closing it stops the server.
 */
public final class OtlpReceiver implements AutoCloseable {

    /**
     * One received span.
     *
     * @param traceId its trace id, 32 hex digits
     * @param spanId its id, 16 hex digits
     * @param parentSpanId its parent's id, {@code ""} for a root
     * @param name its name
     * @param kind its kind ({@code SPAN_KIND_CONSUMER}, ...)
     * @param attributes its attributes (strings, longs, booleans, doubles, lists of those)
     * @param events the names of its events, in order
     * @param service the {@code service.name} of the process that sent it
     */
    public record ReceivedSpan(String traceId, String spanId, String parentSpanId, String name, String kind,
            Map<String, Object> attributes, List<String> events, String service) {

        /** @return the attribute as a long; fails when absent */
        public long longAttribute(String key) {
            Object value = attributes.get(key);
            if (!(value instanceof Long number)) {
                throw new AssertionError("span " + name + " has no number " + key + ": " + attributes);
            }
            return number;
        }
    }

    private final HttpServer server;
    private final boolean keeping;
    private final List<ReceivedSpan> spans = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong exports = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    private OtlpReceiver(HttpServer server, boolean keeping) {
        this.server = server;
        this.keeping = keeping;
    }

    /** @return a receiver that keeps every span, listening on 127.0.0.1 */
    public static OtlpReceiver start() {
        return start(true);
    }

    /**
     * @return a receiver that answers every export at once and counts its bytes ({@link #bytesReceived()}), decoding
     *         nothing, for a benchmark: a collector runs on other machines, so this one takes as little of the machine
     *         as it can from what is measured
     */
    public static OtlpReceiver counting() {
        return start(false);
    }

    private static OtlpReceiver start(boolean keeping) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            OtlpReceiver receiver = new OtlpReceiver(server, keeping);
            server.createContext("/", receiver::handle);
            server.start();
            return receiver;
        } catch (IOException e) {
            throw new IllegalStateException("the OTLP receiver could not start: " + e.getMessage(), e);
        }
    }

    /** @return the base URL to configure as the exporter's endpoint ({@code /v1/traces} is appended by it) */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** @return every span received so far (none for a {@link #counting()} receiver) */
    public List<ReceivedSpan> spans() {
        synchronized (spans) {
            return List.copyOf(spans);
        }
    }

    /** @return how many export requests were answered so far */
    public long exports() {
        return exports.get();
    }

    /** @return the bytes of the export requests received so far (protobuf, before any decompression) */
    public long bytesReceived() {
        return bytes.get();
    }

    /** @return the spans received so far of one trace */
    public List<ReceivedSpan> trace(String traceId) {
        return spans().stream().filter(span -> span.traceId().equals(traceId)).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod()) || !exchange.getRequestURI().getPath().endsWith("/v1/traces")) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            InputStream body = exchange.getRequestBody();
            if (!keeping) {
                bytes.addAndGet(body.transferTo(OutputStream.nullOutputStream()));
                exports.incrementAndGet();
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(body);
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
            for (ResourceSpans resource : request.getResourceSpansList()) {
                String service = String.valueOf(attributes(resource.getResource().getAttributesList())
                        .get("service.name"));
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                    scope.getSpansList().forEach(span -> spans.add(new ReceivedSpan(hex(span.getTraceId().toByteArray()),
                            hex(span.getSpanId().toByteArray()), hex(span.getParentSpanId().toByteArray()),
                            span.getName(), span.getKind().name(), attributes(span.getAttributesList()),
                            span.getEventsList().stream().map(event -> event.getName()).toList(), service)));
                }
            }
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                exchange.getResponseBody().write(answer);
            }
        }
    }

    private static Map<String, Object> attributes(List<KeyValue> pairs) {
        Map<String, Object> attributes = new LinkedHashMap<>();
        pairs.forEach(pair -> attributes.put(pair.getKey(), value(pair.getValue())));
        return attributes;
    }

    private static Object value(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case INT_VALUE -> value.getIntValue();
            case BOOL_VALUE -> value.getBoolValue();
            case DOUBLE_VALUE -> value.getDoubleValue();
            case ARRAY_VALUE -> {
                List<Object> values = new ArrayList<>();
                value.getArrayValue().getValuesList().forEach(element -> values.add(value(element)));
                yield values;
            }
            default -> value.toString();
        };
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

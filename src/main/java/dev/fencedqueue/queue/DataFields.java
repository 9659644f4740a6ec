package dev.fencedqueue.queue;

import java.math.BigInteger;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;

/**
 * One wording for a JSON document that is not what its reader needs, a request body or a job's data: names the field
 * at fault by its path from the document's root, behind a prefix ({@code data}, {@code children[0].data},
 * {@code template.data}; {@code ""} for a request body), with list elements by index ({@code subscriberIds[3]}), and
 * says what is wrong in the product's words, never in Jackson's or Java's (no class name, no parser internals).
 */
public final class DataFields {

    private DataFields() {
    }

    /**
     * @param prefix where the document is ({@code ""} for a request body), must not be {@code null}
     * @param failure what Jackson could not read, must not be {@code null}
     * @return the refusal naming the field: an unknown field, a value of the wrong JSON type, or text that is not JSON
     */
    public static InvalidJobDataException refusal(String prefix, JsonProcessingException failure) {
        if (failure instanceof UnrecognizedPropertyException unknown) {
            String field = field(prefix, unknown);
            return new InvalidJobDataException(field, "`" + field + "` is not a known field" + known(unknown
                    .getKnownPropertyIds()));
        }
        if (failure instanceof MismatchedInputException mismatched && String.valueOf(mismatched.getOriginalMessage())
                .startsWith("Trailing token")) {
            return new InvalidJobDataException(prefix.isEmpty() ? null : prefix, (prefix.isEmpty() ? "the request body"
                    : "`" + prefix + "`") + " must be one JSON value, with nothing after it" + at(failure.getLocation()));
        }
        if (failure instanceof MismatchedInputException mismatched) {
            String field = field(prefix, mismatched);
            if (field.isEmpty()) {
                return new InvalidJobDataException(null, "the request body must be " + expected(
                        mismatched.getTargetType()));
            }
            return new InvalidJobDataException(field, "`" + field + "` must be " + expected(mismatched.getTargetType()));
        }
        if (failure instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
            String field = field(prefix, mapping);
            return new InvalidJobDataException(field, "`" + field + "` is not valid");
        }
        String what = prefix.isEmpty() ? "the request body" : "`" + prefix + "`";
        return new InvalidJobDataException(prefix.isEmpty() ? null : prefix, what + " is not valid JSON: "
                + (failure instanceof JsonEOFException ? "it ends too early" : "unexpected input")
                + at(failure.getLocation()));
    }

    /**
     * @param prefix where the document is ({@code ""} for a request body), must not be {@code null}
     * @param violations what Bean Validation found, not empty
     * @return the refusal of the first violation by field path; a message written as {@code `name` must ...} or
     *         {@code must ...} names the whole path ({@code `data.query` must not be blank})
     */
    public static InvalidJobDataException refusal(String prefix, Collection<? extends ConstraintViolation<?>> violations) {
        ConstraintViolation<?> first = violations.stream()
                .min(Comparator.comparing((ConstraintViolation<?> v) -> field(prefix, v.getPropertyPath()))).orElseThrow();
        String field = field(prefix, first.getPropertyPath());
        String message = first.getMessage();
        if (message.startsWith("must")) {
            return new InvalidJobDataException(field, "`" + field + "` " + message);
        }
        if (field.isEmpty()) {
            // A constraint on the document itself (a missing body): its message names the field to give.
            int open = message.indexOf('`');
            int close = open < 0 ? -1 : message.indexOf('`', open + 1);
            return new InvalidJobDataException(close > open + 1 ? message.substring(open + 1, close) : null, message);
        }
        int close = message.startsWith("`") ? message.indexOf('`', 1) : -1;
        if (close > 1) {
            message = "`" + field + "`" + message.substring(close + 1);
        }
        return new InvalidJobDataException(field, message);
    }

    /**
     * @param prefix where the document is, must not be {@code null}
     * @param failure a failure of Jackson's that knows where it happened
     * @return the path of the field it happened at ({@code children[0].data.subscriberIds[3]}); the prefix for the
     *         document itself
     */
    public static String field(String prefix, JsonMappingException failure) {
        StringBuilder path = new StringBuilder(prefix);
        for (JsonMappingException.Reference reference : failure.getPath()) {
            if (reference.getFieldName() != null) {
                append(path, reference.getFieldName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    /**
     * @param prefix where the document is, must not be {@code null}
     * @param property the property path of a violation (a bean's, or a REST method's parameter's)
     * @return the path of the field from the document's root ({@code subscriberIds[3]}, {@code throttle.maxItemsPerSecond});
     *         the prefix for the document itself
     */
    public static String field(String prefix, Path property) {
        StringBuilder path = new StringBuilder(prefix);
        for (Path.Node node : property) {
            ElementKind kind = node.getKind();
            if (kind == ElementKind.METHOD || kind == ElementKind.CONSTRUCTOR || kind == ElementKind.PARAMETER
                    || kind == ElementKind.CROSS_PARAMETER || kind == ElementKind.RETURN_VALUE) {
                continue;
            }
            if (node.isInIterable()) {
                path.append('[').append(node.getIndex() != null ? node.getIndex() : node.getKey()).append(']');
            }
            if ((kind == ElementKind.PROPERTY || kind == ElementKind.BEAN) && node.getName() != null) {
                append(path, node.getName());
            }
        }
        return path.toString();
    }

    private static void append(StringBuilder path, String name) {
        if (path.length() > 0) {
            path.append('.');
        }
        path.append(name);
    }

    private static String known(Collection<Object> names) {
        if (names == null || names.isEmpty()) {
            return "";
        }
        Set<String> sorted = new TreeSet<>();
        names.forEach(name -> sorted.add("`" + name + "`"));
        return " (known: " + String.join(", ", sorted) + ")";
    }

    private static String at(JsonLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }

    /** @return what a JSON value of {@code type} looks like, for a message ("a string", "an integer" ...) */
    static String expected(Class<?> type) {
        if (type == null) {
            return "of another type";
        }
        if (CharSequence.class.isAssignableFrom(type) || type == char.class || type == Character.class) {
            return "a string";
        }
        if (type == int.class || type == long.class || type == short.class || type == Integer.class
                || type == Long.class || type == Short.class || type == BigInteger.class) {
            return "an integer";
        }
        if (type == double.class || type == float.class || Number.class.isAssignableFrom(type)) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        }
        if (type.isEnum()) {
            return "one of " + List.of(type.getEnumConstants());
        }
        return "a JSON object";
    }
}

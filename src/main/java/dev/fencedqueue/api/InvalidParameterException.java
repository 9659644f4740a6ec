package dev.fencedqueue.api;

import dev.fencedqueue.queue.InvalidJobDataException;

/** Thrown when a path, query or body parameter of the API is not valid; answered with 400 naming it. */
public class InvalidParameterException extends IllegalArgumentException {

    private final String field;

    /**
     * @param field the parameter at fault, as the client spelled it (e.g. {@code rateLimit.max})
     * @param message what is wrong with it, for humans
     */
    public InvalidParameterException(String field, String message) {
        super(message);
        this.field = field;
    }

    /**
     * @param e a refusal whose message names the field first, between backticks ({@code `children[1].name` must ...},
     *        the form of the queue's checks)
     * @return the refusal as a 400 naming that field (none when the message names none)
     */
    public static InvalidParameterException of(IllegalArgumentException e) {
        if (e instanceof InvalidParameterException invalid) {
            return invalid;
        }
        if (e instanceof InvalidJobDataException bad) {
            InvalidParameterException invalid = new InvalidParameterException(bad.field(), bad.getMessage());
            invalid.initCause(e);
            return invalid;
        }
        String message = e.getMessage() == null ? "invalid request" : e.getMessage();
        int open = message.indexOf('`');
        int close = open < 0 ? -1 : message.indexOf('`', open + 1);
        InvalidParameterException invalid = new InvalidParameterException(close > open + 1
                ? message.substring(open + 1, close) : null, message);
        invalid.initCause(e);
        return invalid;
    }

    /** @return the parameter at fault */
    public String field() {
        return field;
    }
}

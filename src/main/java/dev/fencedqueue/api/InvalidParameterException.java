package dev.fencedqueue.api;

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

    /** @return the parameter at fault */
    public String field() {
        return field;
    }
}

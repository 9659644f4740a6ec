package dev.fencedqueue.queue;

/**
 * Thrown when a job's data, or a request body, is not what its reader needs: names the field at fault by its path
 * ({@code data.query}, {@code children[0].data.chunkSize}, {@code subscriberIds[3]}); the HTTP API answers it with
 * {@code 400} and that field.
 */
public class InvalidJobDataException extends IllegalArgumentException {

    private final String field;

    /**
     * @param field the path of the field at fault, or {@code null} when the whole document is
     * @param message what is wrong, in the product's words, naming the field
     */
    public InvalidJobDataException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** @return the path of the field at fault, or {@code null} */
    public String field() {
        return field;
    }
}

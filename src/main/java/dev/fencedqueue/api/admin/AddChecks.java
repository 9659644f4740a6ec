package dev.fencedqueue.api.admin;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.fencedqueue.queue.DataFields;
import dev.fencedqueue.queue.InvalidJobDataException;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.WorkerManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;

/**
 * What the HTTP API checks when it adds a job to a named queue ({@code POST /admin/flows}, a job scheduler's template):
 * whether this service has a processor for the queue, and whether the job's data is what that processor reads
 * ({@link JobProcessor#dataType()}), with the same checks as the endpoint that adds such jobs. A queue that nothing
 * serves is not an error (a worker for it may start later, in another service): the job is accepted with a warning.
 */
@ApplicationScoped
public class AddChecks {

    private final WorkerManager workers;
    private final ObjectMapper json;
    private final Validator validator;

    public AddChecks(WorkerManager workers, ObjectMapper json, Validator validator) {
        this.workers = workers;
        this.json = json;
        this.validator = validator;
    }

    /**
     * @param queue a queue name, must not be {@code null}
     * @return whether this service has a processor for it: a {@link JobProcessor} bean's (whether or not this instance
     *         runs workers: every instance of the service has the same), the no-op queue, a worker created here
     */
    public boolean serves(String queue) {
        return workers.processedQueues().contains(queue);
    }

    /**
     * @param queue a queue name, must not be {@code null}
     * @return the warning to answer with when a job is added to it and nothing serves it; empty when it is served
     */
    public Optional<String> unservedWarning(String queue) {
        if (serves(queue)) {
            return Optional.empty();
        }
        return Optional.of("no instance of this service serves queue `" + queue + "`: its jobs wait until a worker "
                + "for it starts (queues served: " + String.join(", ", workers.processedQueues()) + ")");
    }

    /**
     * @param queue a queue name, must not be {@code null}
     * @return the options its processor gives a job that names none ({@link JobProcessor#defaultOptions()}), or
     *         {@link JobOptions#defaults()} for a queue this service does not serve
     */
    public JobOptions defaultOptions(String queue) {
        return workers.processor(queue).map(JobProcessor::defaultOptions).orElseGet(JobOptions::defaults);
    }

    /**
     * Checks a job's data against what the queue's processor reads ({@link JobProcessor#dataType()}): read strictly,
     * then Bean Validation. Nothing is checked for a queue without a processor, or whose processor declares no type.
     *
     * @param queue the job's queue, must not be {@code null}
     * @param data the job's data; {@code null} or JSON {@code null} is read as {@code {}}
     * @param path where the data is in the request ({@code data}, {@code children[0].data}, {@code template.data})
     * @throws InvalidJobDataException naming the field by its path ({@code children[0].data.query})
     */
    public void checkData(String queue, JsonNode data, String path) {
        Optional<Class<?>> type = workers.processor(queue).flatMap(JobProcessor::dataType);
        if (type.isEmpty()) {
            return;
        }
        JsonNode document = data == null || data.isNull() ? JsonNodeFactory.instance.objectNode() : data;
        Object read;
        try {
            read = json.readerFor(type.get()).with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                    .readValue(json.treeAsTokens(document));
        } catch (JsonProcessingException e) {
            throw DataFields.refusal(path, e);
        } catch (IOException e) {
            throw new InvalidJobDataException(path, "`" + path + "` cannot be read");
        }
        Set<ConstraintViolation<Object>> violations = validator.validate(read);
        if (!violations.isEmpty()) {
            throw DataFields.refusal(path, violations);
        }
    }

    /**
     * Checks every job of a flow ({@link #checkData} for each, by its path in the request).
     *
     * @param root the flow's root, must not be {@code null}
     * @return the queues of the flow that nothing serves, in the order met (see {@link #unservedWarning}); empty when
     *         all are served
     * @throws InvalidJobDataException naming the first bad field ({@code children[1].data.query})
     */
    public Set<String> checkFlow(FlowJob root) {
        Set<String> unserved = new LinkedHashSet<>();
        check(root, "", unserved);
        return unserved;
    }

    private void check(FlowJob job, String path, Set<String> unserved) {
        checkData(job.queue(), job.data(), path + "data");
        if (!serves(job.queue())) {
            unserved.add(job.queue());
        }
        for (int i = 0; i < job.children().size(); i++) {
            check(job.children().get(i), path + "children[" + i + "].", unserved);
        }
    }
}

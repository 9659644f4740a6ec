package dev.fencedqueue.api;

import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.events.JobEvent;

/** A job's stored events as the API shows them: {@code id}, {@code event}, the event's data, {@code timestamp}. */
public final class JobEventViews {

    private JobEventViews() {
    }

    /**
     * @param events stored events, in stream order, must not be {@code null}
     * @param json builds the views
     * @return one JSON object per event
     */
    public static List<ObjectNode> of(List<JobEvent> events, ObjectMapper json) {
        return events.stream().map(event -> {
            ObjectNode view = json.createObjectNode().put("id", event.id()).put("event", event.type());
            if (JobStatusView.parse(json, event.data()) instanceof ObjectNode data) {
                view.setAll(data);
            }
            view.put("timestamp", event.timestamp());
            return view;
        }).toList();
    }
}

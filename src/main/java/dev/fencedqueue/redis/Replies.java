package dev.fencedqueue.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.vertx.mutiny.redis.client.Response;
import io.vertx.redis.client.ResponseType;

/** Reads Redis replies the same way whether the connection speaks RESP2 (flat arrays) or RESP3 (maps). */
public final class Replies {

    private Replies() {
    }

    /**
     * @param reply a map reply, or an array of alternating keys and values, or {@code null}
     * @return the pairs as strings, in reply order; empty for {@code null}
     */
    public static Map<String, String> toStringMap(Response reply) {
        Map<String, String> map = new LinkedHashMap<>();
        pairs(reply).forEach((key, value) -> map.put(key, value == null ? null : value.toString()));
        return map;
    }

    /**
     * @param reply a map reply, or an array of alternating keys and values, or an array of two-element
     *        arrays (as {@code XREAD} answers in RESP2), or {@code null}
     * @return the pairs, in reply order; empty for {@code null}
     */
    public static Map<String, Response> pairs(Response reply) {
        Map<String, Response> map = new LinkedHashMap<>();
        if (reply == null || reply.type() != ResponseType.MULTI) {
            return map;
        }
        if (reply.isMap()) {
            for (String key : reply.getKeys()) {
                map.put(key, reply.get(key));
            }
            return map;
        }
        boolean nested = reply.size() > 0 && reply.get(0) != null && reply.get(0).type() == ResponseType.MULTI;
        if (nested) {
            for (Response pair : reply) {
                map.put(pair.get(0).toString(), pair.get(1));
            }
        } else {
            for (int i = 0; i + 1 < reply.size(); i += 2) {
                map.put(reply.get(i).toString(), reply.get(i + 1));
            }
        }
        return map;
    }

    /**
     * @param reply an array reply, or {@code null}
     * @return its elements; empty for {@code null}
     */
    public static List<Response> elements(Response reply) {
        List<Response> list = new ArrayList<>();
        if (reply != null && reply.type() == ResponseType.MULTI) {
            reply.forEach(list::add);
        }
        return list;
    }
}

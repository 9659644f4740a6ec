package dev.fencedqueue.api.admin;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Maps {@code fq.admin.username} (default {@code admin}) and {@code fq.admin.password} onto one user of
 * Quarkus's embedded users realm ({@code quarkus.security.users.embedded.users.<name>} and
 * {@code ...roles.<name>=admin}), so that the operator's credentials can come from two plain environment
 * variables ({@code FQ_ADMIN_USERNAME}, {@code FQ_ADMIN_PASSWORD}), e.g. out of a Kubernetes Secret.
 * Without a password (or with a blank one) no user is defined and every {@code /admin} request answers 401.
 */
public class AdminUserConfigSourceFactory implements ConfigSourceFactory {

    /** The name of the config source, shown by config tooling. */
    static final String SOURCE_NAME = "fq.admin user";
    /** The role every {@code /admin} path requires. */
    static final String ROLE = "admin";

    private static final String DEFAULT_USERNAME = "admin";
    private static final int ORDINAL = 150;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        String password = value(context.getValue("fq.admin.password"));
        if (password == null || password.isBlank()) {
            return List.of();
        }
        String username = value(context.getValue("fq.admin.username"));
        if (username == null || username.isBlank()) {
            username = DEFAULT_USERNAME;
        }
        String key = "\"" + username + "\"";
        return List.of(new PropertiesConfigSource(Map.of(
                "quarkus.security.users.embedded.users." + key, password,
                "quarkus.security.users.embedded.roles." + key, ROLE), SOURCE_NAME, ORDINAL));
    }

    @Override
    public OptionalInt getPriority() {
        return OptionalInt.of(ORDINAL);
    }

    private static String value(ConfigValue value) {
        return value == null ? null : value.getValue();
    }
}

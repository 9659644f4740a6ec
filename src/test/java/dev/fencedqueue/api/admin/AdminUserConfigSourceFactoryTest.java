package dev.fencedqueue.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.Test;

/** {@code fq.admin.*} becomes one user of the embedded realm, or none without a password. */
class AdminUserConfigSourceFactoryTest {

    private final AdminUserConfigSourceFactory factory = new AdminUserConfigSourceFactory();

    @Test
    void definesNoUserWithoutAPassword() {
        assertThat(sources(Map.of())).isEmpty();
        assertThat(sources(Map.of("fq.admin.username", "ops", "fq.admin.password", " "))).isEmpty();
    }

    @Test
    void definesTheAdminUserWithTheAdminRole() {
        ConfigSource source = single(Map.of("fq.admin.password", "secret"));

        assertThat(source.getValue("quarkus.security.users.embedded.users.\"admin\"")).isEqualTo("secret");
        assertThat(source.getValue("quarkus.security.users.embedded.roles.\"admin\"")).isEqualTo("admin");
    }

    @Test
    void quotesAUserNameWithDotsAsOneMapKey() {
        ConfigSource source = single(Map.of("fq.admin.username", "ops.team", "fq.admin.password", "secret"));

        assertThat(source.getPropertyNames()).containsExactlyInAnyOrder(
                "quarkus.security.users.embedded.users.\"ops.team\"", "quarkus.security.users.embedded.roles.\"ops.team\"");
    }

    private ConfigSource single(Map<String, String> values) {
        List<ConfigSource> sources = sources(values);
        assertThat(sources).hasSize(1);
        return sources.get(0);
    }

    private List<ConfigSource> sources(Map<String, String> values) {
        ConfigSourceContext context = new ConfigSourceContext() {
            @Override
            public ConfigValue getValue(String name) {
                return ConfigValue.builder().withName(name).withValue(values.get(name)).build();
            }

            @Override
            public Iterator<String> iterateNames() {
                return Collections.unmodifiableSet(values.keySet()).iterator();
            }
        };
        return StreamSupport.stream(factory.getConfigSources(context).spliterator(), false).toList();
    }
}

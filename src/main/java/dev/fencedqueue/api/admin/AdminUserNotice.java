package dev.fencedqueue.api.admin;

import java.util.stream.StreamSupport;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

/** Tells at startup when the operator API has no user, so that a 401 on {@code /admin} is not a mystery. */
@ApplicationScoped
public class AdminUserNotice {

    private static final Logger LOG = Logger.getLogger(AdminUserNotice.class);
    private static final String USERS = "quarkus.security.users.embedded.users.";

    void check(@Observes StartupEvent event, Config config) {
        boolean anyUser = StreamSupport.stream(config.getPropertyNames().spliterator(), false)
                .anyMatch(name -> name.startsWith(USERS));
        if (!anyUser) {
            LOG.info("the operator API (/admin) has no user and answers 401: set fq.admin.password "
                    + "(FQ_ADMIN_PASSWORD) and optionally fq.admin.username (FQ_ADMIN_USERNAME, default admin)");
        }
    }
}

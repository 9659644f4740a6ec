package dev.fencedqueue.docs;

import java.util.HashMap;
import java.util.Map;

import dev.fencedqueue.research.OpenAiProtocolProfile;

import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;

/** The documentation's commands of blocks that say {@code # with fq.tenancy.source=header}. */
@QuarkusTest
@RuntimeProfile(TenancyDocumentedCommandsTest.TenantFromHeader.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class TenancyDocumentedCommandsTest extends DocumentedCommandsRunner {

    /** Tenants from {@code X-Tenant-Id}, with the default protocol (as {@link DocumentedCommandsTest}). */
    public static class TenantFromHeader implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(new OpenAiProtocolProfile().getConfigOverrides());
            config.put("fq.tenancy.source", "header");
            return config;
        }
    }

    @Override
    Map<String, String> settings() {
        return Map.of("fq.tenancy.source", "header");
    }
}

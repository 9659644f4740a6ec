package dev.fencedqueue.docs;

import java.util.Map;

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

    /** Tenants from {@code X-Tenant-Id}. */
    public static class TenantFromHeader implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("fq.tenancy.source", "header");
        }
    }

    @Override
    Map<String, String> settings() {
        return Map.of("fq.tenancy.source", "header");
    }
}

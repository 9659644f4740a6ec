package dev.fencedqueue.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.util.QuarkusTestProfileAwareClassOrderer;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * Quarkus's class orderer (failsafe's {@code quarkus.test.class-orderer} in the pom), which runs the
 * classes that share an application one after the other, so that it starts once for them, also for the
 * {@code @QuarkusIntegrationTest} classes that inherit their {@code @WithTestResource} from the {@code @QuarkusTest}
 * class they extend: Quarkus's orderer reads only the annotations of the class itself ({@code @WithTestResource} is
 * not {@code @Inherited}), took those classes for classes without resources, and ordered them by name, so that the
 * packaged application was started again between classes that could have shared it.
 */
public class InheritedResourcesClassOrderer extends QuarkusTestProfileAwareClassOrderer {

    @Override
    protected Optional<String> getCustomOrderKey(ClassDescriptor descriptor, ClassOrdererContext context,
            String secondaryOrderSuffix) {
        Class<?> testClass = descriptor.getTestClass();
        if (!testClass.isAnnotationPresent(QuarkusIntegrationTest.class) || testClass.isAnnotationPresent(TestProfile.class)
                || testClass.getAnnotationsByType(WithTestResource.class).length > 0) {
            return Optional.empty();
        }
        List<WithTestResource> inherited = new ArrayList<>();
        for (Class<?> type = testClass.getSuperclass(); type != null; type = type.getSuperclass()) {
            inherited.addAll(List.of(type.getAnnotationsByType(WithTestResource.class)));
        }
        if (inherited.isEmpty()) {
            return Optional.empty();
        }
        if (inherited.stream().anyMatch(resource -> resource.scope() == TestResourceScope.RESTRICTED_TO_CLASS)) {
            return Optional.of(DEFAULT_ORDER_PREFIX_QUARKUS_TEST_WITH_RESTRICTED_RES + secondaryOrderSuffix);
        }
        TreeSet<String> names = new TreeSet<>();
        inherited.forEach(resource -> names.add(resource.value().getSimpleName()));
        return Optional.of(DEFAULT_ORDER_PREFIX_QUARKUS_TEST_WITH_MATCHING_RES + names + secondaryOrderSuffix);
    }
}

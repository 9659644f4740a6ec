package dev.fencedqueue.api;

import java.util.Optional;

import dev.fencedqueue.config.ResearchConfig;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Checks at startup that the settings which read bearer tokens ({@code fq.research.require-owner},
 * {@code fq.tenancy.source=principal}) can verify them: SmallRye JWT needs a public key and an issuer, which are
 * SmallRye JWT's options ({@code mp.jwt.verify.*}), not ours, so no constraint of our mappings can hold them. It runs
 * first of all startup observers ({@code @Priority(1)}), before any request is served.
 */
@ApplicationScoped
public class BearerTokenCheck {

    void check(@Observes @Priority(1) StartupEvent event, ResearchConfig research, TenancyConfig tenancy,
            @ConfigProperty(name = "mp.jwt.verify.publickey") Optional<String> publicKey,
            @ConfigProperty(name = "mp.jwt.verify.publickey.location") Optional<String> publicKeyLocation,
            @ConfigProperty(name = "mp.jwt.verify.issuer") Optional<String> issuer) {
        Verification verification = new Verification(publicKey.isPresent() || publicKeyLocation.isPresent(),
                issuer.isPresent());
        check("`fq.research.require-owner`", research.requireOwner(), verification);
        check("`fq.tenancy.source=principal`", tenancy.source() == TenancyConfig.Source.PRINCIPAL, verification);
    }

    /**
     * Checks that bearer tokens can be verified, for a setting that reads them.
     *
     * @param setting the setting that needs them, for the message (e.g. {@code `fq.tenancy.source=principal`})
     * @param needed whether that setting is on
     * @param verification what SmallRye JWT is given to verify tokens with, must not be {@code null}
     * @throws IllegalStateException when {@code needed} and {@code mp.jwt.verify.publickey} (or its {@code .location})
     *         or {@code mp.jwt.verify.issuer} is missing
     */
    public static void check(String setting, boolean needed, Verification verification) {
        if (needed && !(verification.key() && verification.issuer())) {
            throw new IllegalStateException(setting + " needs bearer tokens to be verifiable: set "
                    + "`mp.jwt.verify.publickey` (or `mp.jwt.verify.publickey.location`) and `mp.jwt.verify.issuer`");
        }
    }

    /**
     * What SmallRye JWT verifies tokens with.
     *
     * @param key whether {@code mp.jwt.verify.publickey} or {@code mp.jwt.verify.publickey.location} is set
     * @param issuer whether {@code mp.jwt.verify.issuer} is set
     */
    public record Verification(boolean key, boolean issuer) {
    }
}

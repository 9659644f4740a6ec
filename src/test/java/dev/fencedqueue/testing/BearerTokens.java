package dev.fencedqueue.testing;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

import io.smallrye.jwt.build.Jwt;

/**
 * Bearer JWTs for tests of what reads a caller's principal: one issuer whose RSA keys derive from a fixed seed, so that
 * a test profile and its test, loaded by different class loaders, agree on them.
 */
public final class BearerTokens {

    /** The issuer the service is told to trust. */
    public static final String ISSUER = "https://issuer.fenced-queue.test";

    /** The issuer's keys. */
    public static final KeyPair KEYS = rsaKeyPair("the issuer");

    private BearerTokens() {
    }

    /** @return the settings that make SmallRye JWT verify tokens signed with {@link #KEYS} by {@link #ISSUER} */
    public static Map<String, String> verified() {
        return Map.of("mp.jwt.verify.publickey", Base64.getEncoder().encodeToString(KEYS.getPublic().getEncoded()),
                "mp.jwt.verify.issuer", ISSUER);
    }

    /**
     * @param user the principal ({@code upn} and {@code sub})
     * @param keys whose private key signs it: {@link #KEYS}, or another pair for a token the service must refuse
     * @return a token valid for 5 minutes
     */
    public static String token(String user, KeyPair keys) {
        return Jwt.issuer(ISSUER).upn(user).subject(user).expiresIn(Duration.ofMinutes(5)).sign(keys.getPrivate());
    }

    /**
     * @param seed what the keys derive from
     * @return a 2048-bit RSA key pair, the same for the same seed
     */
    public static KeyPair rsaKeyPair(String seed) {
        try {
            SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
            random.setSeed(seed.getBytes(StandardCharsets.UTF_8));
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048, random);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

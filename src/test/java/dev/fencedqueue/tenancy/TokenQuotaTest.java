package dev.fencedqueue.tenancy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** Token quotas' calendar periods (UTC) and the tenant settings' JSON. */
class TokenQuotaTest {

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void aPeriodIsNamedByItsUtcDateAndEndsAtTheNextMidnightUtc() {
        Instant lateOnNewYearsEve = Instant.parse("2026-12-31T23:59:59.999Z");

        assertThat(TokenQuota.Period.DAY.id(lateOnNewYearsEve)).isEqualTo("day:2026-12-31");
        assertThat(TokenQuota.Period.MONTH.id(lateOnNewYearsEve)).isEqualTo("month:2026-12");
        assertThat(TokenQuota.Period.DAY.end(lateOnNewYearsEve)).isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
        assertThat(TokenQuota.Period.MONTH.end(lateOnNewYearsEve)).isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
        Instant midnight = Instant.parse("2026-02-28T00:00:00Z");
        assertThat(TokenQuota.Period.DAY.id(midnight)).as("midnight opens a day").isEqualTo("day:2026-02-28");
        assertThat(TokenQuota.Period.MONTH.end(midnight)).isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
    }

    @Test
    void settingsReadWhatTheyWriteAndRefuseWhatIsNotASettingNamingIt() throws Exception {
        TenantSettings settings = TenantSettings.read(json.readTree("{\"tokenQuota\": {\"tokens\": 5000, \"period\": \"month\"}}"));

        assertThat(settings.tokenQuota()).isEqualTo(new TokenQuota(5000, TokenQuota.Period.MONTH));
        assertThat(TenantSettings.read(settings.write())).isEqualTo(settings);
        assertThat(settings.allows(4999)).isTrue();
        assertThat(settings.allows(5000)).isFalse();
        assertThat(TenantSettings.read(json.readTree("{}"))).isEqualTo(TenantSettings.DEFAULTS);
        assertThat(TenantSettings.DEFAULTS.allows(Long.MAX_VALUE)).isTrue();
        assertThatThrownBy(() -> TenantSettings.read(json.readTree("{\"tokenQuota\": {\"tokens\": \"5\", \"period\": \"day\"}}")))
                .hasMessageStartingWith("`tokenQuota.tokens`");
        assertThatThrownBy(() -> TenantSettings.read(json.readTree("{\"tokenQuota\": {\"tokens\": 5, \"per\": \"day\"}}")))
                .hasMessageStartingWith("`tokenQuota.per`");
        TenantSettings all = TenantSettings.read(json.readTree("{\"weight\": 2.5, \"concurrency\": 3, \"tokenQuota\": "
                + "{\"tokens\": 10, \"period\": \"day\"}}"));
        assertThat(all).isEqualTo(new TenantSettings(2.5, 3, null, new TokenQuota(10, TokenQuota.Period.DAY)));
        assertThat(TenantSettings.read(all.write())).isEqualTo(all);
        for (String bad : java.util.List.of("0", "-1", "1.5", "\"3\"", "1000001")) {
            assertThatThrownBy(() -> TenantSettings.read(json.readTree("{\"concurrency\": " + bad + "}"))).as(bad)
                    .hasMessageStartingWith("`concurrency` must be a whole number of jobs from 1 to 1000000");
        }
        TenantSettings rated = TenantSettings.read(json.readTree("{\"rateLimit\": {\"max\": 2, \"duration\": 60000}}"));
        assertThat(rated.rateLimit()).isEqualTo(new TenantSettings.RateLimit(2, 60_000));
        assertThat(TenantSettings.read(rated.write())).isEqualTo(rated);
        assertThatThrownBy(() -> TenantSettings.read(json.readTree("{\"rateLimit\": {\"max\": 2}}")))
                .hasMessageStartingWith("`rateLimit.duration`");
        assertThatThrownBy(() -> TenantSettings.read(json.readTree("{\"rateLimit\": {\"max\": 0, \"duration\": 1}}")))
                .hasMessageStartingWith("`rateLimit.max`");
        assertThatThrownBy(() -> TenantSettings.read(json.readTree("{\"rateLimit\": {\"max\": 1, \"per\": 1}}")))
                .hasMessageStartingWith("`rateLimit.per` is not part of a rate limit");
        assertThatThrownBy(() -> TenantSettings.read(json.readTree("{\"priority\": 1}")))
                .hasMessageStartingWith("`priority` is not a tenant setting");
    }
}

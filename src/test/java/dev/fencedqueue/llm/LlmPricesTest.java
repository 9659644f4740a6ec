package dev.fencedqueue.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.Optional;

import dev.fencedqueue.llm.LlmConfig;
import org.junit.jupiter.api.Test;

/**
 * An attempt's cost is its prompt tokens at {@code fq.llm.price.input} and its completion tokens at
 * {@code fq.llm.price.output}, per million tokens, counted in micro-units of the prices' currency; the two prices go
 * together. Plain JUnit: no application starts.
 */
class LlmPricesTest {

    @Test
    void costsPromptTokensAtTheInputPriceAndCompletionTokensAtTheOutputPriceInMicroUnits() {
        // USD 2.50 and 10 per million: 1,000 prompt tokens cost 0.0025, 500 completion tokens 0.005.
        long micros = LlmPrices.micros(new BigDecimal("2.50"), new BigDecimal("10"), 1_000, 500);

        assertThat(micros).isEqualTo(7_500);
        assertThat(LlmPrices.units(micros)).isEqualTo(0.0075);
    }

    @Test
    void roundsWhatIsLeftOfAMicroUnitHalfUpOncePerCall() {
        // USD 0.15 and 0.6 per million: 3 prompt tokens cost 0.45 micro-units, 1 completion token 0.6: 1.05 together.
        assertThat(LlmPrices.micros(new BigDecimal("0.15"), new BigDecimal("0.6"), 3, 1)).isEqualTo(1);
        assertThat(LlmPrices.micros(new BigDecimal("0.15"), new BigDecimal("0.6"), 10, 0)).as("1.5").isEqualTo(2);
        assertThat(LlmPrices.micros(BigDecimal.ZERO, BigDecimal.ZERO, 1_000_000, 1_000_000)).isZero();
    }

    @Test
    void onePriceWithoutTheOtherFailsStartup() {
        assertThatThrownBy(() -> LlmConfig.Price.check(new Price(Optional.of(BigDecimal.ONE), Optional.empty())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("`fq.llm.price.output`")
                .hasMessageContaining("set together");
        assertThatThrownBy(() -> LlmConfig.Price.check(new Price(Optional.empty(), Optional.of(BigDecimal.ONE))))
                .isInstanceOf(IllegalStateException.class);
        assertThatCode(() -> LlmConfig.Price.check(new Price(Optional.empty(), Optional.empty()))).doesNotThrowAnyException();
        assertThatCode(() -> LlmConfig.Price.check(new Price(Optional.of(BigDecimal.ONE), Optional.of(BigDecimal.TEN))))
                .doesNotThrowAnyException();
    }

    /** Named records, not anonymous classes: CDI refuses the constraint annotations inherited by the latter. */
    record Price(Optional<BigDecimal> input, Optional<BigDecimal> output) implements LlmConfig.Price {
    }
}

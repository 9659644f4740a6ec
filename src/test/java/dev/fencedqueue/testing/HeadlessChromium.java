package dev.fencedqueue.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real headless Chromium for browser tests, driven by Selenium through the distribution's chromedriver:
 * Debian's packages {@code chromium} and {@code chromium-driver} ({@code /usr/bin/chromium},
 * {@code /usr/bin/chromedriver}; other paths through the environment variables {@code FQ_CHROMIUM} and
 * {@code FQ_CHROMEDRIVER}). Nothing is downloaded: without both executables the calling test is skipped
 * (JUnit assumption) with the command that installs them, unless {@code FQ_BROWSER_TESTS=required}, which
 * makes it fail instead (CI sets it after installing them).
 *
 * <p>The browser runs with the flags that keep it off the network this machine cannot reach (no background
 * networking, component updates or sync) and in a fresh profile that chromedriver deletes on {@link #close}.
 */
public final class HeadlessChromium implements AutoCloseable {

    private static final Path BROWSER = Path.of(env("FQ_CHROMIUM", "/usr/bin/chromium"));
    private static final Path DRIVER = Path.of(env("FQ_CHROMEDRIVER", "/usr/bin/chromedriver"));

    private final ChromeDriver driver;

    private HeadlessChromium(ChromeDriver driver) {
        this.driver = driver;
    }

    /**
     * Starts chromedriver on a free loopback port and a headless Chromium under it.
     *
     * @return the running browser; close it to quit both processes
     * @throws org.opentest4j.TestAbortedException when the executables are missing and browser tests are not
     *         required
     * @throws IllegalStateException when the executables are missing and {@code FQ_BROWSER_TESTS=required}
     * @throws org.openqa.selenium.SessionNotCreatedException when chromedriver cannot start the browser
     */
    public static HeadlessChromium launch() {
        boolean present = Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
        if (!"required".equals(System.getenv("FQ_BROWSER_TESTS"))) {
            assumeTrue(present, "browser tests need " + BROWSER + " and " + DRIVER
                    + " (Debian: apt-get install chromium chromium-driver)");
        } else if (!present) {
            throw new IllegalStateException("FQ_BROWSER_TESTS=required but " + BROWSER + " or " + DRIVER + " is missing");
        }
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort().withLogOutput(OutputStream.nullOutputStream()).build();
        ChromeOptions options = new ChromeOptions().setBinary(BROWSER.toFile()).addArguments("--headless=new",
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--remote-allow-origins=*");
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20)).scriptTimeout(Duration.ofSeconds(20));
        return new HeadlessChromium(driver);
    }

    /** @return the WebDriver of this browser */
    public ChromeDriver driver() {
        return driver;
    }

    /** Quits the browser and chromedriver. */
    @Override
    public void close() {
        driver.quit();
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}

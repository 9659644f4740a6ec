package dev.fencedqueue.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

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
 * networking, component updates or sync), in a fresh profile that chromedriver deletes on {@link #close}, and with
 * its temporary files in a directory of its own, deleted then too.
 *
 * <p>{@link #screenshot} saves what a test shows into {@code docs/screenshots/}, so that the pictures in the docs are
 * those of the last test run.
 */
public final class HeadlessChromium implements AutoCloseable {

    private static final Path BROWSER = Path.of(env("FQ_CHROMIUM", "/usr/bin/chromium"));
    private static final Path DRIVER = Path.of(env("FQ_CHROMEDRIVER", "/usr/bin/chromedriver"));

    private final ChromeDriver driver;
    private final Path scratch;

    private HeadlessChromium(ChromeDriver driver, Path scratch) {
        this.driver = driver;
        this.scratch = scratch;
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
        // Chromium's own temporary files (its process singleton's socket, which it leaves behind when chromedriver
        // quits it) go to a directory of this browser's, deleted on close.
        Path scratch;
        try {
            scratch = Files.createTempDirectory("fq-chromium-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the browser's temporary directory", e);
        }
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort().withEnvironment(Map.of("TMPDIR", scratch.toString()))
                .withLogOutput(OutputStream.nullOutputStream()).build();
        ChromeOptions options = new ChromeOptions().setBinary(BROWSER.toFile()).addArguments("--headless=new",
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--remote-allow-origins=*");
        ChromeDriver driver;
        try {
            driver = new ChromeDriver(service, options);
        } catch (RuntimeException e) {
            TempDirectories.delete(scratch);
            throw e;
        }
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20)).scriptTimeout(Duration.ofSeconds(20));
        return new HeadlessChromium(driver, scratch);
    }

    /**
     * Where {@link #screenshot} writes: {@code docs/screenshots} of the project ({@code basedir}, which Maven's test
     * plugins set, else the working directory).
     */
    public static final Path SCREENSHOTS = Path.of(System.getProperty("basedir", "."), "docs", "screenshots");

    /**
     * How a screenshot is taken: the viewport's width and the most of the page's height it shows (CSS pixels, at a
     * device scale factor of 1, so that the files stay small), and the colour scheme the page sees.
     *
     * @param width the viewport's width; below 600 the page is shown as on a phone
     * @param maxHeight the most of the page's height the picture holds (all of it when shorter)
     * @param dark whether the page sees {@code prefers-color-scheme: dark}
     */
    public record Shot(int width, int maxHeight, boolean dark) {

        /** A desktop window, light. */
        public static Shot desktop(int maxHeight) {
            return new Shot(1024, maxHeight, false);
        }

        /** A phone (390 px wide), dark. */
        public static Shot phoneDark(int maxHeight) {
            return new Shot(390, maxHeight, true);
        }
    }

    /**
     * Saves a PNG of the current page as {@code shot} says into {@link #SCREENSHOTS}, then gives the page back its
     * own viewport and colour scheme. The page is laid out again at the shot's width first (what it shows may move).
     *
     * @param name the file's name without {@code .png}, must not be {@code null}
     * @param shot how to take it, must not be {@code null}
     * @return the file written
     * @throws UncheckedIOException when the file cannot be written
     */
    public Path screenshot(String name, Shot shot) {
        driver.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", shot.width(), "height", 800,
                "deviceScaleFactor", 1, "mobile", shot.width() < 600));
        driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features",
                List.of(Map.of("name", "prefers-color-scheme", "value", shot.dark() ? "dark" : "light"))));
        try {
            Number height = (Number) driver.executeScript("window.scrollTo(0, 0); "
                    + "return document.documentElement.scrollHeight");
            Map<String, Object> clip = Map.of("x", 0, "y", 0, "width", shot.width(),
                    "height", Math.min(shot.maxHeight(), height.intValue()), "scale", 1);
            Map<String, Object> picture = driver.executeCdpCommand("Page.captureScreenshot", Map.of("format", "png",
                    "captureBeyondViewport", true, "clip", clip));
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.createDirectories(SCREENSHOTS);
            Files.write(file, Base64.getDecoder().decode((String) picture.get("data")));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the screenshot " + name, e);
        } finally {
            driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features", List.of()));
            driver.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
        }
    }

    /** @return the WebDriver of this browser */
    public ChromeDriver driver() {
        return driver;
    }

    /** Quits the browser and chromedriver, and deletes the browser's temporary files. */
    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            TempDirectories.delete(scratch);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}

package dev.fencedqueue.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * One headless Chromium per test class ({@link HeadlessChromium}): launched before the class's first test, quit
 * after its last. {@code @RegisterExtension static final ChromiumExtension CHROMIUM = new ChromiumExtension();}
 * Without a browser the class is skipped (or fails with {@code FQ_BROWSER_TESTS=required}), as
 * {@link HeadlessChromium#launch} decides.
 */
public final class ChromiumExtension implements BeforeAllCallback, AfterAllCallback {

    private HeadlessChromium chromium;

    @Override
    public void beforeAll(ExtensionContext context) {
        chromium = HeadlessChromium.launch();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (chromium != null) {
            chromium.close();
            chromium = null;
        }
    }

    /** @return the browser's driver; only while the class runs */
    public ChromeDriver driver() {
        return chromium.driver();
    }

    /**
     * Saves a screenshot of the current page into {@code docs/screenshots/} ({@link HeadlessChromium#screenshot}).
     *
     * @param name the file's name without {@code .png}
     * @param shot the viewport and colour scheme
     */
    public void screenshot(String name, HeadlessChromium.Shot shot) {
        chromium.screenshot(name, shot);
    }
}

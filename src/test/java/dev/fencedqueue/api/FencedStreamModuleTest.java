package dev.fencedqueue.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.ChromiumExtension;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The contract of {@code /fenced-stream.js}, in headless Chromium with a scripted {@code EventSource} (the module
 * takes one in its options): what it passes on, drops, and does when the stream is refused. The real stream is
 * exercised by {@link AnswerPageTest} and {@link ResearchPageTest}.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class FencedStreamModuleTest {

    /** A scripted EventSource: the test emits events and failures; every instance is recorded with its URL. */
    private static final String HARNESS = """
            const { followJob, compareIds } = await import('/fenced-stream.js');
            class FakeSource {
                static CONNECTING = 0; static OPEN = 1; static CLOSED = 2;
                constructor(url) { this.url = url; this.readyState = 0; this.listeners = {}; FakeSource.all.push(this); }
                addEventListener(type, listener) { (this.listeners[type] ??= []).push(listener); }
                close() { this.readyState = 2; this.closedByClient = true; }
                emit(type, id, data) {
                    for (const l of this.listeners[type] ?? []) l({ lastEventId: id ?? '', data: JSON.stringify(data) });
                }
                fail(readyState) { this.readyState = readyState; this.onerror?.(); }
            }
            FakeSource.all = [];
            const log = [];
            const stream = followJob('/research/stream/j1', {
                onStarted: (e) => log.push(['started', e.id, e.fencingToken]),
                onProgress: (e) => log.push(['progress', e.id, e.fencingToken]),
                onDelta: (text) => log.push(['delta', text]),
                onReset: (token, previous) => log.push(['reset', token, previous]),
                onResume: (e) => log.push(['resume', e.id, e.fencingToken, e.data.resumeFrom, e.reason]),
                onEnd: (e) => log.push(['end', e.type, e.id]),
                onConnection: (state, detail) => log.push(['connection', state, detail.delayMs ?? null]),
            }, { EventSource: FakeSource, initialRetryDelayMs: 20, maxRetryDelayMs: 40 });
            """;

    @TestHTTPResource("/")
    URL base;

    @RegisterExtension
    static final ChromiumExtension CHROMIUM = new ChromiumExtension();

    @Test
    void passesOneRunAtATimeEachEventOnceAndStopsAfterTheTerminalEvent() {
        List<Object> log = run("""
                const s = FakeSource.all[0];
                s.readyState = 1; s.onopen();
                s.emit('started', '1-0', { fencingToken: 1 });
                s.emit('progress', '2-0', { fencingToken: 1, delta: 'Hel' });
                s.emit('progress', '2-0', { fencingToken: 1, delta: 'Hel' });      // a replayed duplicate
                s.emit('reset', null, { fencingToken: 2 });
                s.emit('progress', '3-0', { fencingToken: 1, delta: 'stale' });    // the old run, after the reset
                s.emit('started', '4-0', { fencingToken: 2 });
                s.emit('progress', '5-0', { fencingToken: 2, delta: 'Hello' });
                s.emit('completed', '6-0', { fencingToken: 2, result: {} });
                s.emit('progress', '7-0', { fencingToken: 2, delta: 'after the end' });
                done({ log, closed: s.closedByClient === true, sources: FakeSource.all.length,
                       order: [compareIds('10-0', '9-5') > 0, compareIds('5-2', '5-10') < 0] });
                """);

        assertThat(log).containsExactly(
                row("connection", "connecting", null), row("connection", "live", null),
                row("reset", 1L, 0L), row("started", "1-0", 1L),
                row("delta", "Hel"), row("progress", "2-0", 1L),
                row("reset", 2L, 1L), row("started", "4-0", 2L),
                row("delta", "Hello"), row("progress", "5-0", 2L),
                row("connection", "closed", null), row("end", "completed", "6-0"));
    }

    @Test
    void startsOverWhenANewAttemptStartsUnderTheTokenAlreadyShown() {
        // Redis lost the activation of the run shown and handed its token out again: the new attempt's `started`
        // (alone, or after the service's reset) must not merge into the run already shown.
        List<Object> log = run("""
                const s = FakeSource.all[0];
                s.readyState = 1; s.onopen();
                s.emit('started', '1-0', { fencingToken: 7 });
                s.emit('progress', '2-0', { fencingToken: 7, percent: 18 });
                s.emit('started', '3-0', { fencingToken: 7 });                      // a new attempt, no reset
                s.emit('progress', '4-0', { fencingToken: 7, percent: 6 });
                s.emit('reset', null, { fencingToken: 7 });                         // the service's reset ...
                s.emit('reset', null, { fencingToken: 7 });                         // (nothing shown since: ignored)
                s.emit('started', '5-0', { fencingToken: 7 });                      // ... then one reset only
                s.emit('completed', '6-0', { fencingToken: 7, result: {} });
                done({ log });
                """);

        assertThat(log).containsExactly(
                row("connection", "connecting", null), row("connection", "live", null),
                row("reset", 7L, 0L), row("started", "1-0", 7L), row("progress", "2-0", 7L),
                row("reset", 7L, 7L), row("started", "3-0", 7L), row("progress", "4-0", 7L),
                row("reset", 7L, 7L), row("started", "5-0", 7L),
                row("connection", "closed", null), row("end", "completed", "6-0"));
    }

    /** A resume keeps the answer, and says why the newer run continues ({@code reason}). */
    @Test
    void keepsTheAnswerWhenANewerRunResumesIt() {
        List<Object> log = run("""
                const s = FakeSource.all[0];
                s.readyState = 1; s.onopen();
                s.emit('started', '1-0', { fencingToken: 1 });
                s.emit('progress', '2-0', { fencingToken: 1, delta: 'Hel' });
                s.emit('progress', '3-0', { fencingToken: 1, delta: 'lo' });
                s.emit('resume', '5-0', { fencingToken: 2, attempt: 2, resumeFrom: '3-0', reason: 'takeover' });
                s.emit('progress', '4-0', { fencingToken: 1, delta: 'stale' });    // the old run, after the resume
                s.emit('progress', '6-0', { fencingToken: 2, delta: ', world' });
                s.emit('completed', '7-0', { fencingToken: 2, result: {} });
                done({ log });
                """);

        assertThat(log).as("no reset: the answer is kept").containsExactly(
                row("connection", "connecting", null), row("connection", "live", null),
                row("reset", 1L, 0L), row("started", "1-0", 1L),
                row("delta", "Hel"), row("progress", "2-0", 1L), row("delta", "lo"), row("progress", "3-0", 1L),
                row("resume", "5-0", 2L, "3-0", "takeover"),
                row("delta", ", world"), row("progress", "6-0", 2L),
                row("connection", "closed", null), row("end", "completed", "7-0"));
    }

    @Test
    void dropsWhatItShowedAfterTheResumePointWithoutABlankAnswer() {
        // Redis lost the events after 2-0 that this reader had shown; the run that took over continues after 2-0.
        List<Object> log = run("""
                const s = FakeSource.all[0];
                s.readyState = 1; s.onopen();
                s.emit('started', '1-0', { fencingToken: 1 });
                s.emit('progress', '2-0', { fencingToken: 1, delta: 'Hel' });
                s.emit('progress', '3-0', { fencingToken: 1, delta: 'lo, lost' });
                s.emit('resume', '5-0', { fencingToken: 2, attempt: 2, resumeFrom: '2-0' });   // no reason: null
                s.emit('progress', '6-0', { fencingToken: 2, delta: 'lo' });
                done({ log });
                """);

        assertThat(log).containsExactly(
                row("connection", "connecting", null), row("connection", "live", null),
                row("reset", 1L, 0L), row("started", "1-0", 1L),
                row("delta", "Hel"), row("progress", "2-0", 1L), row("delta", "lo, lost"), row("progress", "3-0", 1L),
                row("reset", 2L, 1L), row("delta", "Hel"), row("progress", "2-0", 1L),
                row("resume", "5-0", 2L, "2-0", null),
                row("delta", "lo"), row("progress", "6-0", 2L));
    }

    @Test
    void afterARefusedStreamItFollowsAgainFromTheLastEventWithBackoff() {
        Map<String, Object> outcome = runForMap("""
                const first = FakeSource.all[0];
                first.readyState = 1; first.onopen();
                first.emit('started', '1-0', { fencingToken: 1 });
                first.emit('progress', '2-0', { fencingToken: 1, delta: 'a' });
                first.fail(1 /* CONNECTING: the browser reconnects by itself */);
                first.fail(2 /* CLOSED: the server refused the stream */);
                await new Promise((r) => setTimeout(r, 100));
                const second = FakeSource.all[1];
                second.fail(2);
                await new Promise((r) => setTimeout(r, 150));
                done({ log, urls: FakeSource.all.map((s) => s.url) });
                """);

        @SuppressWarnings("unchecked")
        List<Object> log = (List<Object>) outcome.get("log");
        assertThat(log).contains(row("connection", "reconnecting", null), row("connection", "retrying", 20L),
                row("connection", "retrying", 40L));
        assertThat(outcome.get("urls")).asList().hasSize(3).startsWith("/research/stream/j1")
                .endsWith("/research/stream/j1?lastEventId=2-0");
    }

    /** @return one logged call, as Selenium returns it (numbers as Long, null kept) */
    private static List<Object> row(Object... values) {
        return java.util.Arrays.asList(values);
    }

    private List<Object> run(String scenario) {
        @SuppressWarnings("unchecked")
        List<Object> log = (List<Object>) runForMap(scenario).get("log");
        return log;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> runForMap(String scenario) {
        browser().get(base + "fenced-stream.js");
        Map<String, Object> outcome = (Map<String, Object>) browser().executeAsyncScript(
                "const done = arguments[arguments.length - 1];\n(async () => {\n" + HARNESS + scenario
                        + "\n})().catch((e) => done({ error: String(e && e.stack || e) }));");
        assertThat(outcome).doesNotContainKey("error");
        return outcome;
    }

    private static ChromeDriver browser() {
        return CHROMIUM.driver();
    }
}

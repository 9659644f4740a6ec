// The research page: starts a job with POST /research/start and follows GET /research/stream/{jobId} with the
// browser's EventSource (HTML Living Standard, "Server-sent events"). The browser reconnects by itself after a
// dropped connection and sends the last `id:` it saw as Last-Event-ID, so the server resumes right after it.
//
// One run at a time: the server announces a newer epoch with a `reset` event (data: {fencingToken}) before its
// first event and never sends an older epoch's event after it. The page drops what it showed of the old run on
// `reset`, and as a second line of defence ignores any event whose fencingToken is below the run it shows.
'use strict';

const TERMINAL = { completed: 'Completed', failed: 'Failed', aborted: 'Aborted' };

const page = {
    form: document.getElementById('start-form'),
    query: document.getElementById('query'),
    start: document.getElementById('start'),
    startError: document.getElementById('start-error'),
    job: document.getElementById('job'),
    jobId: document.getElementById('job-id'),
    state: document.getElementById('state'),
    run: document.getElementById('run'),
    connection: document.getElementById('connection'),
    percent: document.getElementById('percent'),
    notice: document.getElementById('notice'),
    events: document.getElementById('events'),
    outcome: document.getElementById('outcome'),
    outcomeTitle: document.getElementById('outcome-title'),
    outcomeText: document.getElementById('outcome-text'),
    abort: document.getElementById('abort'),
    abortError: document.getElementById('abort-error'),
};

let current = null;

/** Shows an error of the API ({"error", "message"}) or of the network in the given element. */
async function showError(element, response, fallback) {
    let text = fallback;
    if (response) {
        try {
            const body = await response.json();
            text = body.message || body.error || fallback;
        } catch (ignored) {
            text = `${fallback} (HTTP ${response.status})`;
        }
    }
    element.textContent = text;
    element.hidden = false;
}

/** Longest wait before following a job again after the service refused its stream, in ms. */
const MAX_RETRY_DELAY_MS = 30000;

/** Follows one job's event stream until its terminal event; `close()` stops following. */
class JobFollower {

    /**
     * @param jobId the job to follow
     * @param streamUrl its SSE stream
     * @param refusals how many times in a row the service refused this job's stream so far (sets the retry delay)
     */
    constructor(jobId, streamUrl, refusals) {
        this.jobId = jobId;
        this.streamUrl = streamUrl;
        this.refusals = refusals;
        this.epoch = 0;
        this.ended = false;
        this.retry = null;
        this.source = new EventSource(streamUrl);
        this.source.onopen = () => {
            this.refusals = 0;
            this.connection('live');
        };
        this.source.onerror = () => this.failed();
        this.source.addEventListener('reset', (e) => this.reset(JSON.parse(e.data)));
        this.source.addEventListener('started', (e) => this.onEvent('started', e, (data) => this.started(data)));
        this.source.addEventListener('progress', (e) => this.onEvent('progress', e, (data) => this.progress(data)));
        for (const type of Object.keys(TERMINAL)) {
            this.source.addEventListener(type, (e) => this.onEvent(type, e, (data) => this.end(type, data)));
        }
    }

    close() {
        clearTimeout(this.retry);
        this.source.close();
    }

    /**
     * The connection dropped: the browser reconnects by itself (readyState CONNECTING), unless the server answered
     * with something other than a 200 event stream, which closes the EventSource for good. For an unknown job (404)
     * the page says so; otherwise (503 while Redis is down, a 502 from an ingress during a rollout) it follows the
     * job again after 1, 2, 4 ... up to 30 s: the new stream replays the job and shows its latest run.
     */
    async failed() {
        if (this.source.readyState !== EventSource.CLOSED) {
            this.connection('reconnecting');
            return;
        }
        this.connection('closed');
        if (this.ended) {
            return;
        }
        const response = await fetch(`/research/status/${encodeURIComponent(this.jobId)}`).catch(() => null);
        if (current !== this) {
            return; // the page follows another job (or this one afresh) by now
        }
        if (response && response.status === 404) {
            page.state.textContent = 'unknown';
            await showError(page.notice, response, `There is no job ${this.jobId}`);
            page.abort.hidden = true;
            return;
        }
        const delay = Math.min(MAX_RETRY_DELAY_MS, 1000 * 2 ** this.refusals);
        page.notice.textContent = `The service did not answer the stream (${response ? 'HTTP ' + response.status
            : 'unreachable'}); trying again in ${delay / 1000} s.`;
        page.notice.hidden = false;
        this.connection('retrying');
        this.retry = setTimeout(() => follow(this.jobId, this.streamUrl, this.refusals + 1), delay);
    }

    connection(text) {
        if (!this.ended) {
            page.connection.textContent = text;
        }
    }

    onEvent(type, message, handle) {
        const data = JSON.parse(message.data);
        const token = Number(data.fencingToken);
        if (token < this.epoch) {
            return; // an older run's event: the server never sends one after a reset; ignore it if it did
        }
        if (token > this.epoch) {
            this.showRun(token);
        }
        this.eventId = message.lastEventId;
        handle(data);
    }

    /** A newer run took the job over: forget what the old run showed. */
    reset(data) {
        const token = Number(data.fencingToken);
        if (this.epoch > 0) {
            page.notice.textContent = `Run ${this.epoch} stopped; the job was taken over by run ${token}. `
                + 'Showing run ' + token + ' only.';
            page.notice.hidden = false;
        }
        page.events.replaceChildren();
        page.percent.value = 0;
        this.showRun(token);
    }

    showRun(token) {
        this.epoch = token;
        page.run.textContent = String(token);
        page.events.dataset.fencingToken = String(token);
    }

    started(data) {
        page.state.textContent = 'active';
        this.append('started', data, data.workerId ? `Started on ${data.workerId}` : 'Started');
    }

    progress(data) {
        if (typeof data.percent === 'number') {
            page.percent.value = data.percent;
        }
        this.append('progress', data, `${data.percent ?? ''}% ${data.message ?? ''}`.trim());
    }

    end(type, data) {
        this.ended = true;
        this.close();
        page.state.textContent = type;
        page.connection.textContent = 'ended';
        if (type === 'completed') {
            page.percent.value = 100;
        }
        this.append(type, data, TERMINAL[type]);
        page.outcomeTitle.textContent = TERMINAL[type];
        page.outcomeText.textContent = type === 'completed' ? resultText(data.result) : (data.reason ?? '');
        page.outcome.hidden = false;
        page.outcome.dataset.event = type;
        page.abort.hidden = true;
    }

    append(type, data, text) {
        const item = document.createElement('li');
        item.dataset.event = type;
        item.dataset.fencingToken = String(data.fencingToken);
        item.dataset.id = this.eventId; // the stream entry id: the browser resumes after the last one it saw
        item.textContent = text;
        page.events.append(item);
    }
}

function resultText(result) {
    if (result && typeof result === 'object') {
        return result.summary ?? JSON.stringify(result);
    }
    return result == null ? '' : String(result);
}

/**
 * Shows the job panel, empty, and follows the job's stream.
 *
 * @param jobId the job to follow
 * @param streamUrl its SSE stream
 * @param refusals how many times in a row the service refused the stream before (0 for a fresh start)
 */
function follow(jobId, streamUrl, refusals = 0) {
    if (current) {
        current.close();
    }
    page.job.hidden = false;
    page.jobId.textContent = jobId;
    page.state.textContent = 'waiting';
    page.run.textContent = 'none yet';
    page.connection.textContent = 'connecting';
    page.percent.value = 0;
    page.notice.hidden = true;
    page.events.replaceChildren();
    page.outcome.hidden = true;
    page.abort.hidden = false;
    page.abortError.hidden = true;
    current = new JobFollower(jobId, streamUrl, refusals);
    const url = new URL(window.location.href);
    url.searchParams.set('jobId', jobId);
    window.history.replaceState(null, '', url);
}

page.form.addEventListener('submit', async (event) => {
    event.preventDefault();
    page.startError.hidden = true;
    page.start.disabled = true;
    try {
        const response = await fetch('/research/start', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ query: page.query.value }),
        });
        if (response.status !== 202) {
            await showError(page.startError, response, 'The job could not be started');
            return;
        }
        const started = await response.json();
        follow(started.jobId, started.streamUrl);
    } catch (failure) {
        await showError(page.startError, null, 'The service cannot be reached');
    } finally {
        page.start.disabled = false;
    }
});

page.abort.addEventListener('click', async () => {
    if (!current) {
        return;
    }
    page.abortError.hidden = true;
    try {
        const response = await fetch(`/research/abort/${encodeURIComponent(current.jobId)}`, { method: 'POST' });
        if (!response.ok) {
            await showError(page.abortError, response, 'The job could not be aborted');
        }
    } catch (failure) {
        await showError(page.abortError, null, 'The service cannot be reached');
    }
});

// A link to the page with ?jobId=... follows that job (the page puts it there, so a reload keeps following).
const linked = new URL(window.location.href).searchParams.get('jobId');
if (linked) {
    follow(linked, `/research/stream/${encodeURIComponent(linked)}`);
}

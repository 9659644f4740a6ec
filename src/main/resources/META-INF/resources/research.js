// The research page (an ES module): starts a job with POST /research/start and follows GET /research/stream/{jobId}
// with /fenced-stream.js, which keeps one run at a time (a `reset` or a newer fencing token drops the old run),
// shows every event once across reconnects, and retries a refused stream. A streamed answer (fq.llm.protocol=openai)
// is rendered as Markdown as it arrives; the model's text is untrusted: raw HTML in it is shown as text (marked's
// html renderer escapes it) and the rendered HTML is sanitized by DOMPurify before it reaches the page. A deep
// research job is followed over its flow stream (/research/stream/{jobId}/flow, with followFlow): the plan, then one
// row per sub-question (its child job's state, run and progress, each with its own resets), then the report.
import { followFlow, followJob } from '/fenced-stream.js';
import { marked } from '/webjars/marked/lib/marked.esm.js';
import DOMPurify from '/webjars/dompurify/dist/purify.es.mjs';

marked.use({
    gfm: true,
    renderer: {
        // Raw HTML in the model's Markdown (block or inline) is shown as text, never interpreted.
        html(token) {
            return escapeHtml(token.text);
        },
    },
});

/** @param {string} text @returns {string} the text with HTML's special characters escaped */
function escapeHtml(text) {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;');
}

/** @param {string} markdown untrusted Markdown @returns {string} safe HTML */
function renderMarkdown(markdown) {
    return DOMPurify.sanitize(marked.parse(markdown));
}

const TERMINAL = { completed: 'Completed', failed: 'Failed', aborted: 'Aborted' };

const page = {
    form: document.getElementById('start-form'),
    query: document.getElementById('query'),
    deep: document.getElementById('deep'),
    children: document.getElementById('children'),
    childList: document.getElementById('child-list'),
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
    answer: document.getElementById('answer'),
    answerText: document.getElementById('answer-text'),
    tokens: document.getElementById('tokens'),
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

/** Follows one job's event stream through /fenced-stream.js and shows it; `close()` stops following. */
class JobFollower {

    /**
     * @param {string} jobId the job to follow
     * @param {string} streamUrl its SSE stream (a flow stream for a deep research job)
     * @param {boolean} deep whether the job is a deep research job
     */
    constructor(jobId, streamUrl, deep) {
        this.jobId = jobId;
        this.answer = '';
        const connection = {
            onConnection: (state, detail) => this.connection(state, detail),
            onError: (error) => this.unknown(error),
        };
        const own = {
            onReset: (token, previous) => this.reset(token, previous),
            onResume: (event) => this.resumed(event),
            onStarted: (event) => this.started(event),
            onDelta: (text) => this.delta(text),
            onProgress: (event) => this.progress(event),
            onEvent: (event) => this.other(event),
            onEnd: (event) => this.end(event.type, event),
        };
        const options = { statusUrl: `/research/status/${encodeURIComponent(jobId)}` };
        this.stream = deep
            ? followFlow(streamUrl, jobId, (id) => (id === jobId ? own : new ChildRow(id).handlers()), {
                ...connection, onEnd: () => this.connection('ended', {}),
            }, options)
            : followJob(streamUrl, { ...connection, ...own }, options);
    }

    /** An event of another type: a deep research job's plan lists its sub-questions. */
    other(event) {
        if (event.type !== 'plan') {
            return;
        }
        page.children.hidden = false;
        for (const sub of event.data.subQuestions ?? []) {
            ChildRow.of(sub.jobId).query(sub.query);
        }
        this.append(event, event.data.message ?? 'plan');
    }

    close() {
        this.stream.close();
    }

    connection(state, detail) {
        page.connection.textContent = state;
        if (state === 'retrying') {
            page.notice.textContent = `The service did not answer the stream (${detail.status ? 'HTTP '
                + detail.status : 'unreachable'}); trying again in ${detail.delayMs / 1000} s.`;
            page.notice.hidden = false;
        } else if (state === 'live' && page.notice.textContent.startsWith('The service did not answer')) {
            page.notice.hidden = true;
        }
    }

    async unknown(error) {
        page.state.textContent = 'unknown';
        page.notice.textContent = `There is no job ${this.jobId}`;
        page.notice.hidden = false;
        page.abort.hidden = true;
    }

    /** A newer run took the job over: forget what the old run showed. */
    reset(token, previous) {
        if (previous > 0) {
            page.notice.textContent = `The run with fencing token ${previous} stopped; the job was taken over by the `
                + `run with fencing token ${token}. Showing that run only.`;
            page.notice.hidden = false;
        }
        page.events.replaceChildren();
        page.percent.value = 0;
        this.answer = '';
        page.answerText.replaceChildren();
        page.answer.hidden = true;
        page.tokens.textContent = '';
        page.run.textContent = `fencing token ${token}`;
        page.events.dataset.fencingToken = String(token);
    }

    /** A newer run took the job over and continues the answer: keep it, and say so. */
    resumed(event) {
        const worker = event.data.workerId ? ` (${event.data.workerId})` : '';
        page.notice.textContent = `Continued on another worker${worker}: the run with fencing token `
            + `${event.fencingToken} goes on from where the answer stopped.`;
        page.notice.hidden = false;
        page.run.textContent = `attempt ${event.data.attempt ?? '?'} (fencing token ${event.fencingToken})`;
        page.events.dataset.fencingToken = String(event.fencingToken);
        this.append(event, `Continued on ${event.data.workerId ?? 'another worker'}`);
    }

    started(event) {
        page.state.textContent = 'active';
        if (event.data.attempt) {
            page.run.textContent = `attempt ${event.data.attempt} (fencing token ${event.fencingToken})`;
        }
        this.append(event, event.data.workerId ? `Started on ${event.data.workerId}` : 'Started');
    }

    /** New answer text: shown as it arrives, rendered as Markdown (sanitized) once per frame. */
    delta(text) {
        this.answer += text;
        page.answer.hidden = false;
        renderSoon(this.answer);
    }

    progress(event) {
        const data = event.data;
        if (typeof data.percent === 'number') {
            page.percent.value = data.percent;
        }
        if (typeof data.completionTokens === 'number') {
            page.tokens.textContent = `${data.completionTokens} tokens`;
        }
        this.append(event, `${data.percent ?? ''}% ${data.message ?? ''}`.trim());
    }

    end(type, event) {
        const data = event.data;
        page.state.textContent = type;
        page.connection.textContent = 'ended';
        if (type === 'completed') {
            page.percent.value = 100;
        }
        this.append(event, TERMINAL[type]);
        page.outcomeTitle.textContent = TERMINAL[type];
        page.outcomeText.textContent = type === 'completed' ? resultText(data.result) : (data.reason ?? '');
        const result = data.result;
        if (type === 'completed' && result && typeof result.text === 'string') {
            page.answerText.dataset.streamed = this.answer; // what the deltas added up to
            this.answer = result.text; // the whole answer, as stored
            page.answer.hidden = false;
            renderSoon(this.answer);
            if (result.usage) {
                page.tokens.textContent = `${result.usage.completionTokens} tokens`
                    + (result.usage.promptTokens != null ? ` (+ ${result.usage.promptTokens} prompt)` : '');
            }
        }
        page.outcome.hidden = false;
        page.outcome.dataset.event = type;
        page.abort.hidden = true;
    }

    append(event, text) {
        const item = document.createElement('li');
        item.dataset.event = event.type;
        item.dataset.fencingToken = String(event.fencingToken);
        item.dataset.id = event.id; // the stream entry id
        item.textContent = text;
        page.events.append(item);
    }
}

/**
 * One sub-question of a deep research job: a row that shows its child job as that job's own stream keeps it (state,
 * run, progress, the last message; a reset clears the row's progress and counts the resets).
 */
class ChildRow {

    /** @param {string} jobId the child job */
    constructor(jobId) {
        this.item = ChildRow.of(jobId).item;
    }

    /** @returns {{item: HTMLLIElement, query: (text: string) => void}} the row of a child, made when first needed */
    static of(jobId) {
        let item = [...page.childList.children].find((row) => row.dataset.jobId === jobId);
        if (!item) {
            item = document.createElement('li');
            item.dataset.jobId = jobId;
            item.dataset.state = 'waiting';
            item.dataset.resets = '0';
            const query = document.createElement('span');
            query.className = 'child-query';
            const id = document.createElement('code');
            id.textContent = jobId;
            const state = document.createElement('span');
            state.className = 'child-state';
            state.textContent = 'waiting';
            const bar = document.createElement('progress');
            bar.max = 100;
            bar.value = 0;
            const message = document.createElement('span');
            message.className = 'child-message';
            item.append(query, id, state, bar, message);
            page.childList.append(item);
            page.children.hidden = false;
        }
        return { item, query: (text) => { item.querySelector('.child-query').textContent = text; } };
    }

    /** @returns {object} the FencedStreamHandlers of the child's events */
    handlers() {
        return {
            onStarted: (event) => this.show('active', event, event.data.workerId ? `started on ${event.data.workerId}` : 'started'),
            onResume: (event) => {
                this.item.dataset.takeovers = String(Number(this.item.dataset.takeovers ?? 0) + 1);
                this.show('active', event, 'continued on another worker');
            },
            onReset: (token, previous) => {
                this.item.querySelector('progress').value = 0;
                if (previous > 0) { // a newer run starts the child over: what its old run showed is gone
                    this.item.dataset.resets = String(Number(this.item.dataset.resets) + 1);
                    this.item.dataset.takeovers = String(Number(this.item.dataset.takeovers ?? 0) + 1);
                }
            },
            onProgress: (event) => {
                if (typeof event.data.percent === 'number') {
                    this.item.querySelector('progress').value = event.data.percent;
                }
                this.show('active', event, event.data.message ?? '');
            },
            onEnd: (event) => {
                if (event.type === 'completed') {
                    this.item.querySelector('progress').value = 100;
                }
                this.show(event.type, event, event.type === 'completed' ? 'done' : (event.data.reason ?? event.type));
            },
        };
    }

    show(state, event, message) {
        this.item.dataset.state = state;
        this.item.dataset.fencingToken = String(event.fencingToken);
        const takeovers = Number(this.item.dataset.takeovers ?? 0);
        this.item.querySelector('.child-state').textContent = `${state} (fencing token ${event.fencingToken}`
            + `${takeovers > 0 ? `, taken over ${takeovers}×` : ''})`;
        this.item.querySelector('.child-message').textContent = message;
    }
}

let pendingRender = null;

/** Renders the answer at the next frame (many deltas a second become one render). */
function renderSoon(markdown) {
    pendingRender = markdown;
    requestAnimationFrame(() => {
        if (pendingRender !== null) {
            page.answerText.innerHTML = renderMarkdown(pendingRender);
            page.answerText.dataset.source = pendingRender;
            pendingRender = null;
        }
    });
}

function resultText(result) {
    if (result && typeof result === 'object' && typeof result.text === 'string') {
        return `Answer complete (${result.finishReason ?? 'no finish reason'}${result.truncated ? ', truncated' : ''}).`;
    }
    if (result && typeof result === 'object') {
        return result.summary ?? JSON.stringify(result);
    }
    return result == null ? '' : String(result);
}

/**
 * Shows the job panel, empty, and follows the job's stream.
 *
 * @param jobId the job to follow
 * @param streamUrl its SSE stream (the flow stream of a deep research job)
 * @param deep whether it is a deep research job
 */
function follow(jobId, streamUrl, deep) {
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
    page.answer.hidden = true;
    page.answerText.replaceChildren();
    page.tokens.textContent = '';
    page.childList.replaceChildren();
    page.children.hidden = true;
    current = new JobFollower(jobId, streamUrl, deep);
    const url = new URL(window.location.href);
    url.searchParams.set('jobId', jobId);
    if (deep) {
        url.searchParams.set('mode', 'deep');
    } else {
        url.searchParams.delete('mode');
    }
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
            body: JSON.stringify({ query: page.query.value, mode: page.deep.checked ? 'deep' : 'plain' }),
        });
        if (response.status !== 202) {
            await showError(page.startError, response, 'The job could not be started');
            return;
        }
        const started = await response.json();
        follow(started.jobId, started.flowStreamUrl ?? started.streamUrl, Boolean(started.flowStreamUrl));
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
const params = new URL(window.location.href).searchParams;
const linked = params.get('jobId');
if (linked) {
    const deep = params.get('mode') === 'deep';
    follow(linked, `/research/stream/${encodeURIComponent(linked)}${deep ? '/flow' : ''}`, deep);
}

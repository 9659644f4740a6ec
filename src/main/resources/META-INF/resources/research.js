// The research page (an ES module): starts a job with POST /research/start and follows GET /research/stream/{jobId}
// with /fenced-stream.js, which keeps one run at a time (a `reset` or a newer fencing token drops the old run),
// shows every event once across reconnects, and retries a refused stream. What it shows: the question, a progress
// meter and an activity timeline of one line per phase (research-activity.js), and the answer, rendered as Markdown as
// it arrives (research-markdown.js: the model's text is untrusted, and sanitized). A deep research job is followed over
// its flow stream (/research/stream/{jobId}/flow, with followFlow): planning, then the plan's sub-questions, each a row
// that opens onto its own answer (research-plan.js: its child job's events, with their own resets), then the report. A newer run that
// continues the answer (`resume`) is called a takeover only when its `reason` says so.
import { followFlow, followJob } from '/fenced-stream.js';
import { Meter, Timeline, Writing, clock, idMs, phaseOf } from '/research-activity.js';
import { Markdown } from '/research-markdown.js';
import { ChildRow, isCut } from '/research-plan.js';

const TERMINAL = { completed: 'Completed', failed: 'Failed', aborted: 'Aborted' };
const $ = (id) => document.getElementById(id);
const page = {
    form: $('start-form'), query: $('query'), deep: $('deep'), start: $('start'), startError: $('start-error'),
    job: $('job'), kind: $('job-kind'), jobId: $('job-id'), question: $('job-question'), state: $('state'),
    run: $('run'), connection: $('connection'), percent: $('percent'), progressLabel: $('progress-label'),
    progressMeta: $('progress-meta'), notice: $('notice'), events: $('events'), children: $('children'),
    childList: $('child-list'), answer: $('answer'), answerName: $('answer-name'), answerText: $('answer-text'),
    tokens: $('tokens'), outcome: $('outcome'), outcomeTitle: $('outcome-title'), outcomeText: $('outcome-text'),
    abort: $('abort'), abortError: $('abort-error'),
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

function setState(state) {
    page.state.textContent = state;
    page.state.dataset.state = state;
}

function capitalized(text) {
    return text ? text[0].toUpperCase() + text.slice(1) : text;
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
        this.deep = deep;
        this.answer = '';
        this.markdown = new Markdown(page.answerText);
        this.timeline = new Timeline(page.events);
        this.meter = new Meter(page.percent, page.progressLabel, page.progressMeta);
        /** @type {Map<string, ChildRow>} the plan's rows, by child job id */
        this.rows = new Map();
        this.lastMs = NaN;
        /** @type {number|undefined} when the first event shown was written (ms since the epoch) */
        this.firstMs = undefined;
        /** whether the job's plan arrived (a deep research job): what it does after is writing its report */
        this.planned = false;
        this.tokens = 0;
        /** @type {Writing|null} the answer being written, measured on its line ({@link #writingLine}) */
        this.writing = null;
        this.writingLine = null;
        this.ended = false;
        this.timer = setInterval(() => this.tick(), 1000);
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
            ? followFlow(streamUrl, jobId, (id) => (id === jobId ? own : this.row(id).handlers()), {
                ...connection, onEnd: () => this.connection('ended', {}),
            }, options)
            : followJob(streamUrl, { ...connection, ...own }, options);
    }

    close() {
        clearInterval(this.timer);
        this.stream.close();
    }

    /** @returns {ChildRow} the row of a sub-question's job, made when first needed */
    row(jobId) {
        let row = this.rows.get(jobId);
        if (!row) {
            row = new ChildRow(page.childList, jobId, () => this.childEnded());
            this.rows.set(jobId, row);
            page.children.hidden = false;
        }
        return row;
    }

    /** Notes the time of an event (its stream entry id). */
    seen(event) {
        const ms = idMs(event.id);
        if (Number.isFinite(ms)) {
            this.lastMs = ms;
            this.firstMs ??= ms;
        }
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

    unknown() {
        this.ended = true;
        clearInterval(this.timer);
        setState('unknown');
        page.notice.textContent = `There is no job ${this.jobId}`;
        page.notice.hidden = false;
        page.abort.hidden = true;
        this.meter.stop('No such job');
    }

    /** A newer run took the job over and starts over: forget what the old run showed. */
    reset(token, previous) {
        if (previous > 0) {
            page.notice.textContent = `The run with fencing token ${previous} stopped; the job was taken over by the `
                + `run with fencing token ${token}. Showing that run only.`;
            page.notice.hidden = false;
        }
        this.timeline.clear();
        this.planned = false;
        this.meter.indeterminate('Starting');
        this.answer = '';
        this.tokens = 0;
        this.writing = null;
        this.writingLine = null;
        this.markdown.clear();
        page.answer.hidden = true;
        page.tokens.textContent = '';
        page.run.textContent = `fencing token ${token}`;
        page.events.dataset.fencingToken = String(token);
    }

    /**
     * A newer run continues what is shown. Only a takeover (a worker was lost, stopped or handed the job back) is worth
     * a notice; a retry is a quiet line, and a parent going on after its children closes the research line.
     */
    resumed(event) {
        const startMs = this.lastMs;
        this.seen(event);
        const data = event.data;
        const attempt = data.attempt ?? '?';
        setState('active');
        page.run.textContent = `attempt ${attempt} (fencing token ${event.fencingToken})`;
        page.events.dataset.fencingToken = String(event.fencingToken);
        if (event.reason === 'children') {
            this.researched(this.timeline.line('researching', event, startMs), 'done');
            this.meter.indeterminate(this.deep ? 'Writing the report' : 'Continuing');
            return;
        }
        const line = this.timeline.line(`resume ${event.fencingToken}`, event, startMs);
        if (event.reason === 'takeover') {
            const worker = data.workerId ? ` (${data.workerId})` : '';
            page.notice.textContent = `Continued on another worker${worker}: the run with fencing token `
                + `${event.fencingToken} goes on from where the answer stopped.`;
            page.notice.hidden = false;
            this.timeline.set(line, `Continued on ${data.workerId ?? 'another worker'} after a takeover`,
                `attempt ${attempt}`, 'done');
        } else if (event.reason === 'retry') {
            this.timeline.set(line, `Attempt ${attempt} goes on after a failed attempt`, data.workerId ?? '', 'quiet');
        } else {
            this.timeline.set(line, `Attempt ${attempt} goes on`, data.workerId ?? '', 'quiet');
        }
    }

    started(event) {
        this.seen(event);
        setState('active');
        if (event.data.attempt) {
            page.run.textContent = `attempt ${event.data.attempt} (fencing token ${event.fencingToken})`;
        }
        const line = this.timeline.line('started', event, this.lastMs);
        this.timeline.set(line, event.data.workerId ? `Started on ${event.data.workerId}` : 'Started', '', 'done');
        this.meter.indeterminate(this.deep ? 'Planning the research' : 'Asking the model');
    }

    /** New answer text: shown as it arrives, rendered as Markdown (sanitized) once per frame. */
    delta(text) {
        this.answer += text;
        page.answer.hidden = false;
        this.markdown.show(this.answer);
    }

    progress(event) {
        const startMs = this.lastMs;
        const before = this.tokens;
        this.seen(event);
        const data = event.data;
        if (typeof data.completionTokens === 'number') {
            this.tokens = data.completionTokens;
            page.tokens.textContent = `${data.completionTokens} tokens`;
        }
        // After a deep research job's plan, everything the job itself does is writing its report: one line.
        const phase = this.planned && phaseOf(data) !== 'planning' ? 'writing' : phaseOf(data);
        const line = this.timeline.line(phase, event, startMs);
        const message = String(data.message ?? '');
        if (phase === 'planning') {
            this.timeline.set(line, 'Planning the research', '', 'live');
            this.meter.indeterminate('Planning the research');
        } else if (phase === 'writing' && typeof data.completionTokens === 'number') {
            if (this.writingLine !== line) {
                this.writingLine = line;
                this.writing = new Writing(Number(line.dataset.startMs), before);
            }
            this.writing.update(this.tokens, idMs(event.id), data.maxTokens);
            this.showWriting(Date.now());
        } else if (phase === 'writing') { // a report of the research protocol: its steps
            this.timeline.set(line, 'Writing the report', message, 'live');
            this.stepped(data, 'Writing the report', message);
        } else { // a step of the research protocol: its phase, with where it is ("step 3 of 30")
            const step = message.match(/^(.*?)\s*\((step \d+ of \d+)\)$/);
            const what = capitalized(step ? step[1] : message || 'Working');
            this.timeline.set(line, what, step ? step[2] : '', 'live');
            this.stepped(data, what, step ? step[2] : '');
        }
    }

    /** Shows an event's `percent` on the meter, unless it counts tokens (an answer's percent is its own). */
    stepped(data, label, meta) {
        if (typeof data.completionTokens !== 'number' && typeof data.percent === 'number') {
            this.meter.value(data.percent, label, meta ? `${meta} · ${data.percent}%` : `${data.percent}%`);
        }
    }

    /** Shows the answer being written, on its line and the meter. */
    showWriting(nowMs) {
        const label = this.deep ? 'Writing the report' : 'Writing the answer';
        const detail = this.writing.describe(nowMs);
        this.timeline.set(this.writingLine, label, detail, this.ended ? 'done' : 'live');
        const percent = this.writing.percent();
        if (percent === null) {
            this.meter.indeterminate(label, detail);
        } else {
            this.meter.value(percent, label, detail);
        }
    }

    /** Every second: the elapsed time of what goes on (the answer being written, the planning). */
    tick() {
        const line = this.timeline.last;
        if (this.ended || !line || line.dataset.state !== 'live') {
            return;
        }
        if (this.writing && line === this.writingLine) {
            this.showWriting(Date.now());
        } else if (line.dataset.phase === 'planning' && Number.isFinite(Number(line.dataset.startMs))) {
            const elapsed = clock(Date.now() - Number(line.dataset.startMs));
            line.querySelector('.detail').textContent = elapsed;
            this.meter.indeterminate('Planning the research', elapsed);
        }
    }

    /** An event of another type: a deep research job's plan lists its sub-questions. */
    other(event) {
        const startMs = this.lastMs;
        this.seen(event);
        if (event.type !== 'plan') {
            return;
        }
        const subQuestions = event.data.subQuestions ?? [];
        this.planned = true;
        const planned = this.timeline.line('planning', event, startMs);
        this.timeline.set(planned, `Planned ${subQuestions.length} sub-questions`, '', 'done');
        for (const sub of subQuestions) {
            this.row(sub.jobId).query(sub.query);
        }
        this.researched(this.timeline.line('researching', null, this.lastMs), 'live');
    }

    /** A sub-question's job ended: the research line and the meter count it. */
    childEnded() {
        const line = this.timeline.last;
        if (line?.dataset.phase === 'researching' && line.dataset.state === 'live') {
            this.researched(line, 'live');
        }
    }

    /** Writes the research line: how many sub-questions were answered; while live, the meter too. */
    researched(line, state) {
        const rows = [...this.rows.values()];
        const answered = rows.filter((row) => row.state === 'completed').length;
        const failed = rows.filter((row) => row.state === 'failed' || row.state === 'aborted').length;
        const detail = `${answered} of ${rows.length} answered${failed ? `, ${failed} failed` : ''}`;
        this.timeline.set(line, `${state === 'live' ? 'Researching' : 'Researched'} ${rows.length} sub-questions`,
            detail, state);
        if (state === 'live') {
            this.meter.value(rows.length ? ((answered + failed) * 100) / rows.length : 0, 'Researching the sub-questions',
                detail);
        }
    }

    end(type, event) {
        const startMs = this.lastMs;
        this.seen(event);
        this.ended = true;
        clearInterval(this.timer);
        const data = event.data;
        setState(type);
        page.connection.textContent = 'ended';
        if (this.writing && this.timeline.last === this.writingLine) {
            this.showWriting(NaN);
        }
        const line = this.timeline.line('end', event, startMs);
        this.timeline.set(line, TERMINAL[type], type === 'completed' ? '' : (data.reason ?? ''),
            type === 'completed' ? 'done' : 'failed');
        const result = data.result;
        let outcome = type === 'completed' ? resultText(result) : (data.reason ?? '');
        if (type === 'completed' && result && typeof result.text === 'string') {
            page.answerText.dataset.streamed = this.answer; // what the deltas added up to
            this.answer = result.text; // the whole answer, as stored
            if (result.usage) {
                page.tokens.textContent = `${result.usage.completionTokens} tokens`
                    + (result.usage.promptTokens != null ? ` (+ ${result.usage.promptTokens} prompt)` : '');
            }
        } else if (type === 'completed' && result && typeof result.summary === 'string') {
            this.answer = result.summary; // the research protocol's answer
            outcome = 'Research complete.';
        }
        if (type === 'completed' && this.answer) {
            page.answer.hidden = false;
            this.markdown.show(this.answer);
        }
        page.answerText.setAttribute('aria-busy', 'false');
        if (type === 'completed') {
            const took = Number.isFinite(this.firstMs) ? `took ${clock(this.lastMs - this.firstMs)}` : '';
            const detail = this.writing && !this.deep ? this.writing.describe(NaN) : took;
            this.meter.value(100, result?.finishReason === 'length' ? 'Cut at the token limit' : 'Done', detail);
        } else {
            this.meter.stop(TERMINAL[type], data.reason ?? '');
        }
        page.outcomeTitle.textContent = TERMINAL[type];
        page.outcomeText.textContent = outcome;
        page.outcome.dataset.event = type;
        page.outcome.dataset.cut = String(type === 'completed' && isCut(result));
        page.outcome.hidden = false;
        page.abort.hidden = true;
    }
}

/** @returns {string} what a completed job's result says about the answer's end */
function resultText(result) {
    if (result && typeof result === 'object' && typeof result.text === 'string') {
        if (result.finishReason === 'length') {
            return 'The answer was cut at the token limit (max_tokens): it stops mid-way.';
        }
        if (result.truncated) {
            return 'The answer was cut at the size limit (fq.llm.max-response-chars): it stops mid-way.';
        }
        return result.finishReason && result.finishReason !== 'stop'
            ? `Answer complete (finish reason: ${result.finishReason}).` : 'Answer complete.';
    }
    if (result && typeof result === 'object') {
        return result.summary ?? JSON.stringify(result);
    }
    return result == null ? '' : String(result);
}

/**
 * Shows the job panel, empty, and follows the job's stream.
 *
 * @param {string} jobId the job to follow
 * @param {string} streamUrl its SSE stream (the flow stream of a deep research job)
 * @param {boolean} deep whether it is a deep research job
 * @param {string|null} query its question, or null to ask the job's status for it
 */
function follow(jobId, streamUrl, deep, query) {
    if (current) {
        current.close();
    }
    page.job.hidden = false;
    page.kind.textContent = deep ? 'Deep research' : 'Research';
    page.jobId.textContent = jobId;
    page.question.textContent = query ?? '';
    setState('waiting');
    page.run.textContent = 'none yet';
    page.connection.textContent = 'connecting';
    page.notice.hidden = true;
    page.outcome.hidden = true;
    page.abort.hidden = false;
    page.abortError.hidden = true;
    page.answer.hidden = true;
    page.answerName.textContent = deep ? 'Report' : 'Answer';
    page.answerText.setAttribute('aria-busy', 'true');
    delete page.answerText.dataset.streamed;
    page.tokens.textContent = '';
    page.childList.replaceChildren();
    page.children.hidden = true;
    page.events.replaceChildren();
    page.answerText.replaceChildren();
    delete page.answerText.dataset.source;
    current = new JobFollower(jobId, streamUrl, deep);
    current.meter.indeterminate('Waiting for a worker');
    if (query === null) {
        showQuestion(jobId);
    }
    const url = new URL(window.location.href);
    url.searchParams.set('jobId', jobId);
    if (deep) {
        url.searchParams.set('mode', 'deep');
    } else {
        url.searchParams.delete('mode');
    }
    window.history.replaceState(null, '', url);
}

/** Shows the question of a job opened from a link (the status's `data.query`). */
async function showQuestion(jobId) {
    try {
        const response = await fetch(`/research/status/${encodeURIComponent(jobId)}`);
        if (response.ok) {
            const status = await response.json();
            if (current?.jobId === jobId && typeof status.data?.query === 'string') {
                page.question.textContent = status.data.query;
            }
        }
    } catch (ignored) {
        // the stream says what became of the job
    }
}

page.form.addEventListener('submit', async (event) => {
    event.preventDefault();
    page.startError.hidden = true;
    page.start.disabled = true;
    try {
        const query = page.query.value;
        const response = await fetch('/research/start', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ query, mode: page.deep.checked ? 'deep' : 'plain' }),
        });
        if (response.status !== 202) {
            await showError(page.startError, response, 'The job could not be started');
            return;
        }
        const started = await response.json();
        follow(started.jobId, started.flowStreamUrl ?? started.streamUrl, Boolean(started.flowStreamUrl), query.trim());
        page.question.focus(); // a screen reader goes on with the job, which the page now follows
    } catch (failure) {
        await showError(page.startError, null, 'The service cannot be reached');
    } finally {
        page.start.disabled = false;
    }
});

// Ctrl+Enter (or Cmd+Enter) in the question starts the research, as in chat applications.
page.query.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        page.form.requestSubmit();
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
    follow(linked, `/research/stream/${encodeURIComponent(linked)}${deep ? '/flow' : ''}`, deep, null);
}

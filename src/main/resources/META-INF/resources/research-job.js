// One job on the research page (an ES module used by research.js): follows its stream through /fenced-stream.js and
// shows what a reader wants: the question, the progress (the meter and one activity line per phase, in words), the
// answer, and one plain line when the answer went on (or started over) after an interruption. The machinery (the job
// id, its state, each run's attempt, fencing token and worker, the connection) goes into the closed "Details for
// developers" disclosure (research-details.js). A deep research job is followed over its flow stream: planning (each
// sub-question as it is written), then the plan's rows (research-plan.js), then the report.
import { followFlow, followJob } from '/fenced-stream.js';
import { Meter, Timeline, Writing, capitalized, clock, idMs, phaseOf } from '/research-activity.js';
import { Details } from '/research-details.js';
import { Markdown } from '/research-markdown.js';
import { Plan, isCut } from '/research-plan.js';

/** What the meter says once the job ended. */
const ENDED = { completed: 'Finished', failed: 'Failed', aborted: 'Aborted' };

/** @returns {string} a reason as a sentence: capitalized, with a full stop */
function sentence(text) {
    const trimmed = String(text ?? '').trim();
    return trimmed ? capitalized(trimmed) + (/[.!?]$/.test(trimmed) ? '' : '.') : '';
}

/** Follows one job's event stream and shows it on the page; `close()` stops following. */
export class JobFollower {

    /**
     * @param {object} page the page's elements, by name
     * @param {string} jobId the job to follow
     * @param {string} streamUrl its SSE stream (a flow stream for a deep research job)
     * @param {boolean} deep whether the job is a deep research job
     * @param {object} headers what the page sends with its own calls (the tenant's header, when the service needs it)
     */
    constructor(page, jobId, streamUrl, deep, headers) {
        this.page = page;
        this.jobId = jobId;
        this.deep = deep;
        this.answer = '';
        this.markdown = new Markdown(page.answerText);
        this.timeline = new Timeline(page.events);
        this.meter = new Meter(page.percent, page.progressLabel, page.progressMeta);
        this.details = new Details(page);
        this.lastMs = NaN;
        /** @type {number|undefined} when the first event shown was written (ms since the epoch) */
        this.firstMs = undefined;
        /** a deep research job's plan: the planning line, the plan's rows, the research line */
        this.plan = new Plan(page, jobId, this.timeline, this.meter, this.details);
        this.tokens = 0;
        /** @type {Writing|null} the answer being written, measured on its line ({@link #writingLine}) */
        this.writing = null;
        this.writingLine = null;
        this.ended = false;
        this.timer = setInterval(() => this.tick(), 1000);
        const connection = {
            onConnection: (state, detail) => this.connection(state, detail),
            onError: () => this.unknown(),
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
        const options = { statusUrl: `/research/status/${encodeURIComponent(jobId)}`, statusHeaders: headers };
        this.stream = deep
            ? followFlow(streamUrl, jobId, (id) => (id === jobId ? own : this.plan.row(id).handlers()), {
                ...connection, onEnd: () => this.connection('ended', {}),
            }, options)
            : followJob(streamUrl, { ...connection, ...own }, options);
    }

    close() {
        clearInterval(this.timer);
        this.stream.close();
    }

    /** @returns {string} what this job writes: its answer, or a deep research job's report */
    get what() {
        return this.deep ? (this.plan.planned ? 'report' : 'research') : 'answer';
    }

    /** Notes the time of an event (its stream entry id). */
    seen(event) {
        const ms = idMs(event.id);
        if (Number.isFinite(ms)) {
            this.lastMs = ms;
            this.firstMs ??= ms;
        }
    }

    notice(text) {
        this.page.notice.textContent = text;
        this.page.notice.hidden = !text;
    }

    connection(state, detail) {
        this.details.connection(state, detail);
        if (state === 'retrying') {
            this.notice(`The connection to the service was lost; trying again in ${Math.ceil(detail.delayMs / 1000)} s.`);
        } else if (state === 'live' && this.page.notice.textContent.startsWith('The connection to the service')) {
            this.notice('');
        }
    }

    unknown() {
        this.ended = true;
        clearInterval(this.timer);
        this.details.state('unknown');
        this.notice('There is no research at this address: the link may be wrong, or the research was removed.');
        this.page.abort.hidden = true;
        this.meter.stop('Not found');
    }

    /** A newer run took the job over and starts over: forget what the old run showed, and say so in one line. */
    reset(token, previous) {
        if (previous > 0) {
            this.notice(`The ${this.what} was interrupted and started over.`);
            this.details.run('This job', { fencingToken: token, data: {} }, `took over from fencing token ${previous}; `
                + 'started over');
        }
        this.timeline.clear();
        this.plan.clear();
        this.meter.indeterminate('Starting');
        this.answer = '';
        this.tokens = 0;
        this.writing = null;
        this.writingLine = null;
        this.markdown.clear();
        this.page.answer.hidden = true;
        this.page.tokens.textContent = '';
        this.details.current(token, null);
        this.page.events.dataset.fencingToken = String(token);
    }

    /**
     * A newer run continues what is shown. A run that took the job over, or the retry of a failed attempt, is one plain
     * line; a parent going on after its children closes the research line.
     */
    resumed(event) {
        const startMs = this.lastMs;
        this.seen(event);
        const data = event.data;
        this.details.state('active');
        this.details.current(event.fencingToken, data);
        this.page.events.dataset.fencingToken = String(event.fencingToken);
        if (event.reason === 'children') {
            this.details.run('This job', event, 'went on after its sub-questions');
            this.plan.researched(this.timeline.line('researching', event, startMs), 'done');
            this.meter.indeterminate(this.deep ? 'Writing the report' : 'Continuing');
            return;
        }
        const line = this.timeline.line(`resume ${event.fencingToken}`, event, startMs);
        const what = this.what;
        if (event.reason === 'takeover') {
            this.details.run('This job', event, 'took the job over; went on where it stopped');
            this.timeline.set(line, `The ${what} was interrupted and went on where it stopped.`, '', 'quiet');
        } else if (event.reason === 'retry') {
            this.details.run('This job', event, 'retried after a failed attempt; went on where it stopped');
            this.timeline.set(line, `An error interrupted the ${what}; it went on where it stopped.`, '', 'quiet');
        } else {
            this.details.run('This job', event, 'went on where it stopped');
            this.timeline.set(line, `The ${what} went on where it stopped.`, '', 'quiet');
        }
    }

    started(event) {
        this.seen(event);
        this.details.state('active');
        this.details.current(event.fencingToken, event.data);
        this.details.run('This job', event, 'started');
        const line = this.timeline.line('started', event, this.lastMs);
        this.timeline.set(line, 'Started', '', 'done');
        this.meter.indeterminate(this.deep ? 'Planning the research' : 'Asking the model');
    }

    /** New answer text: shown as it arrives, rendered as Markdown (sanitized) once per frame. */
    delta(text) {
        this.answer += text;
        this.page.answer.hidden = false;
        this.markdown.show(this.answer);
    }

    progress(event) {
        const startMs = this.lastMs;
        const before = this.tokens;
        this.seen(event);
        const data = event.data;
        if (typeof data.completionTokens === 'number') {
            this.tokens = data.completionTokens;
            this.page.tokens.textContent = `${data.completionTokens} tokens`;
        }
        // After a deep research job's plan, everything the job itself does is writing its report: one line.
        const phase = this.plan.planned && phaseOf(data) !== 'planning' ? 'writing' : phaseOf(data);
        const line = this.timeline.line(phase, event, startMs);
        const message = String(data.message ?? '');
        if (phase === 'planning') {
            this.plan.planning(line, data);
        } else if (phase === 'writing' && typeof data.completionTokens === 'number') {
            if (this.writingLine !== line) {
                this.writingLine = line;
                this.writing = new Writing(Number(line.dataset.startMs), before);
            }
            this.writing.update(this.tokens, idMs(event.id), data.maxTokens);
            this.showWriting(Date.now());
        } else { // a step of the research protocol: its phase, with where it is ("step 3 of 30")
            const step = message.match(/^(.*?)\s*\((step \d+ of \d+)\)$/);
            const what = phase === 'writing' ? 'Writing the report' : capitalized(step ? step[1] : message || 'Working');
            const where = step ? step[2] : (phase === 'writing' ? message : '');
            this.timeline.set(line, what, where, 'live');
            this.stepped(data, what, where);
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
        } else if (line.dataset.phase === 'planning') {
            this.plan.showPlanning(line, Date.now());
        }
    }

    /** An event of another type: a deep research job's plan lists its sub-questions. */
    other(event) {
        const startMs = this.lastMs;
        this.seen(event);
        if (event.type === 'plan') {
            this.plan.announced(event, startMs, this.lastMs);
        }
    }

    /**
     * The terminal event: the meter says how it ended, once ("Finished", "Failed", "Aborted"); a failure, an abort or an
     * answer cut short says why below the answer. The event is recorded on the last activity line, which it settles.
     */
    end(type, event) {
        const startMs = this.lastMs;
        this.seen(event);
        this.ended = true;
        clearInterval(this.timer);
        const data = event.data;
        this.details.state(type);
        this.details.connection('ended', {});
        this.details.ended(type, data);
        if (this.writing && this.timeline.last === this.writingLine) {
            this.showWriting(NaN);
        }
        const line = this.timeline.last ?? this.timeline.line('end', null, startMs);
        if (!line.querySelector('.what').textContent) {
            this.timeline.set(line, ENDED[type], '', 'done');
        }
        this.timeline.record(line, event);
        line.dataset.state = type === 'completed' ? 'done' : 'failed';
        const result = data.result;
        if (type === 'completed' && result && typeof result.text === 'string') {
            this.page.answerText.dataset.streamed = this.answer; // what the deltas added up to
            this.answer = result.text; // the whole answer, as stored
            if (result.usage) {
                this.page.tokens.textContent = `${result.usage.completionTokens} tokens`
                    + (result.usage.promptTokens != null ? ` (+ ${result.usage.promptTokens} prompt)` : '');
            }
        } else if (type === 'completed' && result && typeof result.summary === 'string') {
            this.answer = result.summary; // the research protocol's answer
        }
        if (type === 'completed' && this.answer) {
            this.page.answer.hidden = false;
            this.markdown.show(this.answer);
        }
        this.page.answerText.setAttribute('aria-busy', 'false');
        const cut = type === 'completed' && isCut(result);
        if (type === 'completed') {
            const took = Number.isFinite(this.firstMs) ? `took ${clock(this.lastMs - this.firstMs)}` : '';
            const detail = this.writing && !this.deep ? this.writing.describe(NaN) : took;
            this.meter.value(100, cut ? 'Finished, cut short' : ENDED[type], detail);
        } else {
            this.meter.stop(ENDED[type]);
        }
        this.page.outcomeText.textContent = outcome(type, data, this.what);
        this.page.outcome.dataset.event = type;
        this.page.outcome.dataset.cut = String(cut);
        this.page.outcome.hidden = !this.page.outcomeText.textContent;
        this.page.abort.hidden = true;
    }
}

/** @returns {string} what the page says below the answer about how the job ended: nothing for a whole answer */
function outcome(type, data, what) {
    if (type === 'failed') {
        return `The research failed: ${sentence(data.reason) || 'no reason was given.'}`;
    }
    if (type === 'aborted') {
        return data.reason === 'aborted by user' ? 'You aborted the research.'
            : `The research was aborted: ${sentence(data.reason) || 'no reason was given.'}`;
    }
    const result = data.result;
    if (result?.finishReason === 'length') {
        return `The ${what} was cut at the token limit: it stops mid-way.`;
    }
    if (result?.truncated) {
        return `The ${what} was cut at the size limit: it stops mid-way.`;
    }
    return '';
}

// The plan of a deep research job on the research page (an ES module used by research-job.js): one row per
// sub-question, made as soon as the plan names it (while the plan is written), showing its child job as that job's own
// stream keeps it, in words, and opening (<details>) onto its answer. Each run of the child (its attempt, fencing token
// and worker) goes to the page's details for developers, not to the row.
import { Markdown } from '/research-markdown.js';
import { capitalized, clock, idMs, phaseOf } from '/research-activity.js';

/** What a child job's state reads as in its row. */
const CHILD_STATES = { waiting: 'planned', active: 'researching', completed: 'answered', failed: 'failed',
    aborted: 'aborted' };

/** @returns {boolean} whether a result's answer was cut short (by max_tokens or the size cap) */
export function isCut(result) {
    return Boolean(result && typeof result === 'object' && (result.finishReason === 'length' || result.truncated));
}

/**
 * The plan of a deep research job: its planning line (how many sub-questions so far, or the server's step, and the
 * time), the plan's rows (one per sub-question, made as its `planning` event names it, then by the `plan` event) and
 * the research line (how many sub-questions were answered).
 */
export class Plan {

    /**
     * @param {object} page the page's elements, by name (children, childList)
     * @param {string} jobId the deep research job
     * @param {import('/research-activity.js').Timeline} timeline the job's activity
     * @param {import('/research-activity.js').Meter} meter the job's meter
     * @param {{run: Function}} details the details for developers, where each child's runs go
     */
    constructor(page, jobId, timeline, meter, details) {
        this.page = page;
        this.jobId = jobId;
        this.timeline = timeline;
        this.meter = meter;
        this.details = details;
        /** @type {Map<string, ChildRow>} the plan's rows, by child job id */
        this.rows = new Map();
        /** whether the job's plan arrived: what the job does after is writing its report */
        this.planned = false;
        /** what the planning line says besides the time: the sub-questions so far, or the server's step */
        this.progress = '';
    }

    /** Forgets the plan (a newer run starts over and plans again). */
    clear() {
        for (const row of this.rows.values()) {
            row.item.remove();
        }
        this.rows.clear();
        this.page.children.hidden = true;
        this.planned = false;
        this.progress = '';
    }

    /** @returns {ChildRow} the row of a sub-question's job, made when first needed */
    row(jobId) {
        let row = this.rows.get(jobId);
        if (!row) {
            const key = jobId.slice(this.jobId.length + 1);
            row = new ChildRow(this.page.childList, jobId, () => this.childEnded(),
                (event, what) => this.details.run(`Sub-question ${key.replace(/^q/, '')}`, event, what));
            this.rows.set(jobId, row);
            this.page.children.hidden = false;
        }
        return row;
    }

    /**
     * A planning event: the planning line says how far the plan got (each sub-question, as it is written, also gets its
     * row), or what the server does (the research protocol, whose plan comes whole at the end).
     */
    planning(line, data) {
        if (typeof data.subQuestion === 'string' && typeof data.key === 'string') {
            this.row(`${this.jobId}:${data.key}`).query(data.subQuestion);
            this.progress = `${this.rows.size} sub-question${this.rows.size === 1 ? '' : 's'} so far`;
        } else if (data.message && data.message !== 'planning the research') {
            this.progress = capitalized(String(data.message));
        }
        this.showPlanning(line, Date.now());
    }

    /** Writes the planning line and the meter, with the time since planning began. */
    showPlanning(line, nowMs) {
        const startMs = Number(line.dataset.startMs);
        const elapsed = Number.isFinite(startMs) ? clock(nowMs - startMs) : '';
        const detail = [this.progress, elapsed].filter(Boolean).join(' · ');
        this.timeline.set(line, 'Planning the research', detail, 'live');
        this.meter.indeterminate('Planning the research', detail);
    }

    /**
     * The `plan` event: the planning line is done, the rows are the plan's, and the research begins.
     *
     * @param {object} event the event
     * @param {number} startMs when the planning began, if its line is new (ms since the epoch)
     * @param {number} nowMs when the plan was written (ms since the epoch)
     */
    announced(event, startMs, nowMs) {
        const subQuestions = event.data.subQuestions ?? [];
        this.planned = true;
        const planned = this.timeline.line('planning', event, startMs);
        this.timeline.set(planned, `Planned ${subQuestions.length} sub-questions`, '', 'done');
        for (const sub of subQuestions) {
            this.row(sub.jobId).query(sub.query);
        }
        this.researched(this.timeline.line('researching', null, nowMs), 'live');
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
}

/**
 * One sub-question of a deep research job: a row that opens (`<details>`) onto its answer, and shows its child job as
 * that job's own stream keeps it (state, progress, what it does; a reset clears its answer and counts); its run is in
 * the row's data (`data-fencing-token`, `data-takeovers`, `data-resets`), not in its text.
 */
export class ChildRow {

    /**
     * @param {HTMLOListElement} list the plan's list, where the row goes
     * @param {string} jobId the child job
     * @param {() => void} onEnded called when the child's job ends
     * @param {(event: object, what: string) => void} onRun called with each run of the child's job (its `started` or
     *     `resume` event) and what it did, for the details
     */
    constructor(list, jobId, onEnded, onRun) {
        this.onEnded = onEnded;
        this.onRun = onRun;
        /** @type {number} when the child's first and last events shown were written (ms since the epoch) */
        this.firstMs = NaN;
        this.lastMs = NaN;
        this.state = 'waiting';
        this.answer = '';
        this.takeovers = 0;
        const item = document.createElement('li');
        item.dataset.jobId = jobId;
        item.dataset.state = 'waiting';
        item.dataset.resets = '0';
        const details = document.createElement('details');
        const summary = document.createElement('summary');
        const query = span('child-query', jobId);
        const state = span('child-state badge', CHILD_STATES.waiting);
        state.dataset.state = 'waiting';
        const bar = document.createElement('progress');
        bar.max = 100;
        bar.value = 0;
        const message = span('child-message', '');
        summary.append(query, state, bar, message);
        const answer = document.createElement('div');
        answer.className = 'child-answer prose';
        details.append(summary, answer);
        item.append(details);
        list.append(item);
        this.item = item;
        this.bar = bar;
        this.markdown = new Markdown(answer);
    }

    /** @param {string} text the sub-question */
    query(text) {
        this.item.querySelector('.child-query').textContent = text;
        this.bar.setAttribute('aria-label', `Progress of: ${text}`);
    }

    /** @returns {object} the FencedStreamHandlers of the child's events */
    handlers() {
        return {
            onStarted: (event) => {
                this.onRun(event, 'started');
                this.show('active', event, 'started');
            },
            onResume: (event) => {
                if (event.reason === 'takeover') {
                    this.takeovers++;
                }
                this.onRun(event, event.reason === 'takeover' ? 'took the job over; went on where it stopped'
                    : 'went on where it stopped');
                this.show('active', event, 'interrupted, then went on where it stopped');
            },
            onReset: (token, previous) => {
                this.bar.value = 0;
                this.answer = '';
                this.markdown.clear();
                if (previous > 0) { // a newer run starts the child over: what its old run showed is gone
                    this.item.dataset.resets = String(Number(this.item.dataset.resets) + 1);
                    this.takeovers++;
                    this.item.querySelector('.child-message').textContent = 'interrupted, then started over';
                }
            },
            onDelta: (text) => {
                this.answer += text;
                this.markdown.show(this.answer);
            },
            onProgress: (event) => {
                const data = event.data;
                let message = data.message ?? '';
                if (typeof data.completionTokens === 'number' && phaseOf(data) === 'writing') {
                    message = `writing: ${data.completionTokens} tokens`;
                    if (typeof data.maxTokens === 'number') {
                        this.bar.value = Math.min(100, (data.completionTokens * 100) / data.maxTokens);
                    } else {
                        this.bar.removeAttribute('value');
                    }
                } else if (typeof data.percent === 'number') {
                    this.bar.value = data.percent;
                }
                this.show('active', event, message);
            },
            onEnd: (event) => {
                const result = event.data.result;
                if (event.type === 'completed') {
                    this.bar.value = 100;
                    const text = typeof result?.text === 'string' ? result.text : result?.summary;
                    if (typeof text === 'string') {
                        this.answer = text;
                        this.markdown.show(text);
                    }
                } else if (!this.bar.hasAttribute('value')) {
                    this.bar.value = 0;
                }
                const took = Number.isFinite(this.firstMs) ? `took ${clock(this.lastMs - this.firstMs)}` : 'done';
                const message = event.type === 'completed' ? (isCut(result) ? `cut at the token limit, ${took}` : took)
                    : (event.data.reason ?? event.type);
                this.show(event.type, event, message);
                this.onEnded();
            },
        };
    }

    show(state, event, message) {
        const ms = idMs(event.id);
        if (Number.isFinite(ms)) {
            this.lastMs = ms;
            if (!Number.isFinite(this.firstMs)) {
                this.firstMs = ms;
            }
        }
        this.state = state;
        this.item.dataset.state = state;
        this.item.dataset.fencingToken = String(event.fencingToken);
        this.item.dataset.takeovers = String(this.takeovers);
        const badge = this.item.querySelector('.child-state');
        badge.textContent = CHILD_STATES[state] ?? state;
        badge.dataset.state = state;
        this.item.querySelector('.child-message').textContent = message;
    }
}

function span(className, text) {
    const element = document.createElement('span');
    element.className = className;
    element.textContent = text;
    return element;
}

// The research page's activity (an ES module used by research.js): a timeline of one line per phase (planning, the
// sub-questions, writing, ...), each line updated in place as its events arrive instead of one line per event, and the
// progress meter: a bar against `maxTokens` when the service says it (fq.llm.request.max-tokens), else an indeterminate bar
// with the tokens written, tokens per second and the time elapsed. Times come from the events' stream entry ids
// (`<ms>-<seq>`, the Redis clock), so a reload shows the same rates as the live page did.

const integer = new Intl.NumberFormat('en');

/**
 * @param {string|null} id a stream entry id (`<ms>-<seq>`)
 * @returns {number} its milliseconds since the epoch, NaN without an id
 */
export function idMs(id) {
    return id ? Number(id.split('-')[0]) : NaN;
}

/**
 * @param {number} ms a duration, ms
 * @returns {string} it as a clock reads: `0:07`, `12:30`, `1:02:03`
 */
export function clock(ms) {
    const total = Math.max(0, Math.round(ms / 1000));
    const hours = Math.floor(total / 3600);
    const minutes = Math.floor((total % 3600) / 60);
    const seconds = String(total % 60).padStart(2, '0');
    return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** @returns {string} the text with its first letter upper-cased (a phase's or a step's words as a line's title) */
export function capitalized(text) {
    return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/**
 * The phase a progress event belongs to, which names its line: the event's `phase` when the service names one
 * (`planning`, `writing`), `writing` for answer text, else its message with the numbers taken out, so that
 * "collecting documents (step 3 of 30)" and "(step 4 of 30)" share a line.
 *
 * @param {object} data the event's data
 * @returns {string} the phase
 */
export function phaseOf(data) {
    if (typeof data.phase === 'string' && data.phase) {
        return data.phase;
    }
    if (typeof data.delta === 'string' || typeof data.reasoningDelta === 'string') {
        return 'writing';
    }
    return `step:${String(data.message ?? '').replace(/\d+/g, '#')}`;
}

/**
 * The activity list: one `<li>` per phase. A line records the stream entry ids of the events it stands for
 * (`data-ids`, space-separated, in order), the type of the last one (`data-event`), its run (`data-fencing-token`) and
 * its state (`data-state`: `live` while its phase goes on, then `done`, `failed` or `quiet` for a note).
 */
export class Timeline {

    /** @param {HTMLOListElement} list the list to fill */
    constructor(list) {
        this.list = list;
    }

    /** Removes every line (a newer run starts over). */
    clear() {
        this.list.replaceChildren();
    }

    /** @returns {HTMLLIElement|null} the newest line */
    get last() {
        return this.list.lastElementChild;
    }

    /**
     * @param {string} phase the phase
     * @param {{type: string, id: string|null, fencingToken: number}|null} event the event it stands for, or null
     * @param {number} startMs when a new line's phase began (ms since the epoch), NaN when not known
     * @returns {HTMLLIElement} the newest line when it is that phase's, else a new line (the newest one is then done)
     */
    line(phase, event, startMs = NaN) {
        let line = this.last;
        if (!line || line.dataset.phase !== phase) {
            this.settle();
            line = document.createElement('li');
            line.dataset.phase = phase;
            line.dataset.state = 'live';
            line.dataset.ids = '';
            line.dataset.startMs = String(startMs);
            const what = document.createElement('span');
            what.className = 'what';
            const detail = document.createElement('span');
            detail.className = 'detail';
            line.append(what, detail);
            this.list.append(line);
        }
        if (event) {
            this.record(line, event);
        }
        return line;
    }

    /** Adds an event to a line. */
    record(line, event) {
        if (event.id) {
            line.dataset.ids = line.dataset.ids ? `${line.dataset.ids} ${event.id}` : event.id;
        }
        line.dataset.event = event.type;
        line.dataset.fencingToken = String(event.fencingToken);
    }

    /**
     * Writes a line.
     *
     * @param {HTMLLIElement} line the line
     * @param {string} what what happens (or happened)
     * @param {string} detail figures, a worker, a reason ('' for none)
     * @param {'live'|'done'|'failed'|'quiet'} state
     */
    set(line, what, detail, state) {
        line.querySelector('.what').textContent = what;
        line.querySelector('.detail').textContent = detail;
        line.dataset.state = state;
    }

    /** The newest line, when live, is over (`done`, or the state given). */
    settle(state = 'done') {
        const line = this.last;
        if (line && line.dataset.state === 'live') {
            line.dataset.state = state;
        }
    }
}

/**
 * The tokens of an answer being written, for its line and the meter: how many, how fast, for how long, and the share of
 * `maxTokens` when the service says it.
 */
export class Writing {

    /**
     * @param {number} startMs when the phase began (ms since the epoch)
     * @param {number} baseTokens tokens written before it (a continued answer's), not counted in its rate
     */
    constructor(startMs, baseTokens) {
        this.startMs = startMs;
        this.baseTokens = baseTokens;
        this.tokens = baseTokens;
        this.lastMs = startMs;
        this.maxTokens = null;
    }

    /**
     * @param {number} tokens the answer's tokens so far (`completionTokens`)
     * @param {number} ms when they were written (the event's id), NaN when not known
     * @param {number|undefined} maxTokens the most the answer may have, when the service says it
     */
    update(tokens, ms, maxTokens) {
        this.tokens = tokens;
        if (Number.isFinite(ms)) {
            if (!Number.isFinite(this.startMs)) {
                this.startMs = ms;
            }
            this.lastMs = ms;
        }
        if (typeof maxTokens === 'number' && maxTokens > 0) {
            this.maxTokens = maxTokens;
        }
    }

    /** @returns {number|null} the tokens as a share of maxTokens (0 to 100), null without maxTokens */
    percent() {
        return this.maxTokens ? Math.min(100, (this.tokens * 100) / this.maxTokens) : null;
    }

    /**
     * @param {number} nowMs the time to measure the elapsed time to (Date.now() while live, else NaN: until the last
     *     event)
     * @returns {string} e.g. `1,234 tokens · 42 tokens/s · 0:27`, or `1,234 of 4,000 tokens · ...`
     */
    describe(nowMs) {
        const parts = [this.maxTokens ? `${integer.format(this.tokens)} of ${integer.format(this.maxTokens)} tokens`
            : `${integer.format(this.tokens)} tokens`];
        const spanMs = this.lastMs - this.startMs;
        if (spanMs > 0 && this.tokens > this.baseTokens) {
            parts.push(`${integer.format(Math.round(((this.tokens - this.baseTokens) * 1000) / spanMs))} tokens/s`);
        }
        if (Number.isFinite(this.startMs)) {
            const end = Number.isFinite(nowMs) ? Math.max(nowMs, this.lastMs) : this.lastMs;
            parts.push(clock(end - this.startMs));
        }
        return parts.join(' · ');
    }
}

/**
 * The progress meter: a `<progress>` (determinate, or indeterminate without a value while nothing can be measured), a
 * label saying what is measured, and its figures.
 */
export class Meter {

    /**
     * @param {HTMLProgressElement} bar
     * @param {HTMLElement} label
     * @param {HTMLElement} meta
     */
    constructor(bar, label, meta) {
        this.bar = bar;
        this.label = label;
        this.meta = meta;
    }

    /** Something goes on that cannot be measured: an indeterminate bar. */
    indeterminate(label, meta = '') {
        this.bar.removeAttribute('value');
        this.show(label, meta);
    }

    /** @param {number} percent 0 to 100 */
    value(percent, label, meta = '') {
        this.bar.value = Math.max(0, Math.min(100, percent));
        this.show(label, meta);
    }

    /** Stops an indeterminate bar where it is (at 0): nothing runs any more. */
    stop(label, meta = '') {
        if (!this.bar.hasAttribute('value')) {
            this.bar.value = 0;
        }
        this.show(label, meta);
    }

    show(label, meta) {
        this.label.textContent = label;
        this.meta.textContent = meta;
    }
}

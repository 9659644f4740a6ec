// fenced-stream.js: follow one fenced-queue job over Server-Sent Events in any frontend. No dependencies; an ES
// module served by the service at /fenced-stream.js.
//
//   import { followJob } from '/fenced-stream.js';
//   const stream = followJob('/research/stream/' + jobId, {
//       onReset: () => answer.replaceChildren(),          // a newer run took over: forget the old one
//       onResume: (event) => {                           // a newer run continues the answer
//           if (event.reason === 'takeover') note.textContent = 'continued on another worker';
//       },
//       onDelta: (text) => answer.append(text),           // streamed answer text (OpenAI protocol)
//       onProgress: (event) => bar.value = event.data.percent,
//       onEnd: (event) => console.log(event.type, event.data),
//   }, { statusUrl: '/research/status/' + jobId });
//   // later: stream.close();
//
// What it guarantees (the frontend's rules, on top of the server's own): one run at a time (it tracks the
// highest epoch, the event's fencingToken, and drops any event of an older one; a `reset` event or a newer token
// calls onReset first, and so does a `started` event under the epoch already shown: a token handed out again after
// Redis lost the activation that first had it is a new attempt, never the same run; a `resume` event is a newer run
// that continues what was shown: it keeps every event up to the resume's `resumeFrom`, calls onResume, and when it
// had shown events after that point (only after Redis lost writes) it calls onReset and hands the kept events to the
// handlers again, so the answer is truncated to the point without a frame in between); every event at most once (it remembers the last stream entry id and drops anything not
// after it, so a reconnect never repeats an event); it resumes after a dropped connection from the last event it
// handled (the browser's own reconnect sends Last-Event-ID; after a refused stream it opens a new EventSource
// with ?lastEventId=, since an EventSource cannot set headers); it stops after the terminal event; and it retries a
// refused stream with exponential backoff, asking statusUrl whether the job still exists.
//
// The protocol is the HTML Living Standard's "Server-sent events"; the stream's ids are Redis stream entry ids
// ("<ms>-<seq>"), which grow within a job.

/** Event types that end a job's stream. */
const TERMINAL = new Set(['completed', 'failed', 'aborted']);
/** Event types a job's stream carries, besides `reset` and `resume` (`plan`: a deep research job's sub-questions). */
const TYPES = ['started', 'progress', 'plan', ...TERMINAL];

/**
 * One event of the job's current run.
 *
 * @typedef {object} JobEvent
 * @property {'started'|'resume'|'progress'|'plan'|'completed'|'failed'|'aborted'} type the event type
 * @property {string|null} id its stream entry id (`<ms>-<seq>`)
 * @property {number} fencingToken the run (epoch) that wrote it
 * @property {object} data the event's data as the service sent it (`percent`, `message`, `delta`, `result`, ...)
 * @property {'takeover'|'retry'|'children'|null} [reason] a `resume` only: why the newer run continues (`data.reason`):
 *     `takeover` (a worker was lost, stopped or handed the job back), `retry` (a failed attempt's retry, an
 *     operator's retry or resume), `children` (a parent going on after its children); null when the service did not
 *     say
 */

/**
 * Callbacks, all optional. They run in the order the events arrive.
 *
 * @typedef {object} FencedStreamHandlers
 * @property {(event: JobEvent) => void} [onStarted] a run started
 * @property {(event: JobEvent) => void} [onProgress] a progress event (also called for events that carry a delta)
 * @property {(text: string, event: JobEvent) => void} [onDelta] new answer text (`data.delta`), in order
 * @property {(text: string, event: JobEvent) => void} [onReasoning] new reasoning text (`data.reasoningDelta`)
 * @property {(fencingToken: number, previous: number) => void} [onReset] a newer run took the job over: drop
 *     everything shown of the previous one (`previous` is 0 when nothing was shown yet)
 * @property {(event: JobEvent) => void} [onResume] a newer run continues what is shown (`reason`: why, only
 *     `takeover` means another worker took the job over; `data.resumeFrom`: the id of the last event it continues
 *     after; `data.attempt`, `data.workerId`)
 * @property {(event: JobEvent) => void} [onEvent] any other event of the run (`plan`: `data.subQuestions`, each
 *     `{key, jobId, query}`)
 * @property {(event: JobEvent) => void} [onEnd] the terminal event; the stream is closed and will not reconnect
 * @property {(state: 'connecting'|'live'|'reconnecting'|'retrying'|'closed', detail: {delayMs?: number,
 *     status?: number|null}) => void} [onConnection] the connection's state; `retrying` after a refused stream,
 *     with the delay before the next try (ms) and the HTTP status statusUrl answered (null when unreachable)
 * @property {(error: {status: number, message: string}) => void} [onError] the job does not exist (statusUrl
 *     answered 404): nothing more will come
 */

/**
 * @typedef {object} FencedStreamOptions
 * @property {string} [statusUrl] the job's status URL, asked after a refused stream (a 404 ends with onError)
 * @property {Object<string, string>} [statusHeaders] headers sent with that request (a tenant's header); the stream
 *     itself sends none (an EventSource cannot set headers)
 * @property {string} [lastEventId] resume after this stream entry id (for example one kept across a reload)
 * @property {number} [initialRetryDelayMs=1000] delay before following again after the first refusal, ms
 * @property {number} [maxRetryDelayMs=30000] longest delay between two tries, ms (doubles from the initial one)
 * @property {typeof EventSource} [EventSource] the EventSource implementation (a polyfill, a test double)
 */

/**
 * Follows a job's event stream.
 *
 * @param {string} streamUrl the job's SSE stream, e.g. `/research/stream/<jobId>`
 * @param {FencedStreamHandlers} [handlers]
 * @param {FencedStreamOptions} [options]
 * @returns {FencedStream} call `close()` to stop following
 */
export function followJob(streamUrl, handlers = {}, options = {}) {
    return new FencedStream(streamUrl, handlers, options);
}

/** A followed job stream; see {@link followJob}. */
export class FencedStream {

    /**
     * @param {string} streamUrl
     * @param {FencedStreamHandlers} handlers
     * @param {FencedStreamOptions} options
     */
    constructor(streamUrl, handlers, options) {
        this.streamUrl = streamUrl;
        this.handlers = handlers;
        this.options = options;
        this.EventSourceType = options.EventSource ?? globalThis.EventSource;
        /** @type {number} the run shown: the highest fencing token seen (0 before the first event) */
        this.epoch = 0;
        /** @type {boolean} whether an event of that run was handled (a `started` under it is then a new attempt) */
        this.shown = false;
        /** @type {string|null} the id of the last event handled */
        this.lastEventId = options.lastEventId ?? null;
        /** @type {JobEvent[]} the progress events shown of the answer, so that a resume can truncate it */
        this.kept = [];
        /** @type {boolean} whether the terminal event arrived */
        this.ended = false;
        this.closed = false;
        this.refusals = 0;
        this.retryTimer = null;
        this.open();
    }

    /** Stops following: closes the connection and cancels a pending retry. */
    close() {
        this.closed = true;
        clearTimeout(this.retryTimer);
        this.source?.close();
    }

    open() {
        const url = this.lastEventId ? withQuery(this.streamUrl, 'lastEventId', this.lastEventId) : this.streamUrl;
        this.connection('connecting', {});
        const source = new this.EventSourceType(url);
        this.source = source;
        source.onopen = () => {
            this.refusals = 0;
            this.connection('live', {});
        };
        source.onerror = () => this.dropped(source);
        this.listen(source);
    }

    /** @param {EventSource} source registers the listeners of the job's events */
    listen(source) {
        source.addEventListener('reset', (message) => this.reset(parse(message.data)));
        source.addEventListener('resume', (message) => this.resume(message));
        for (const type of TYPES) {
            source.addEventListener(type, (message) => this.event(type, message));
        }
    }

    /** @param {MessageEvent} message */
    event(type, message) {
        if (this.closed) {
            return;
        }
        const id = message.lastEventId || null;
        if (id && this.lastEventId && compareIds(id, this.lastEventId) <= 0) {
            return; // seen already: a replay after a reconnect
        }
        const data = parse(message.data);
        const token = Number(data.fencingToken);
        if (token < this.epoch) {
            return; // an older run's event: never shown once a newer run is
        }
        if (token > this.epoch || (type === 'started' && this.shown)) {
            this.newRun(token);
        }
        this.shown = true;
        if (id) {
            this.lastEventId = id;
        }
        /** @type {JobEvent} */
        const event = { type, id, fencingToken: token, data };
        const h = this.handlers;
        if (type === 'started') {
            h.onStarted?.(event);
        } else if (type === 'progress') {
            this.kept.push(event);
            this.progress(event);
        } else if (TERMINAL.has(type)) {
            this.ended = true;
            this.close();
            this.connection('closed', {});
            h.onEnd?.(event);
        } else {
            h.onEvent?.(event);
        }
    }

    /** Hands a progress event to the handlers. */
    progress(event) {
        const h = this.handlers;
        const data = event.data;
        if (typeof data.reasoningDelta === 'string' && data.reasoningDelta) {
            h.onReasoning?.(data.reasoningDelta, event);
        }
        if (typeof data.delta === 'string' && data.delta) {
            h.onDelta?.(data.delta, event);
        }
        h.onProgress?.(event);
    }

    /**
     * A `resume` event: a newer run owns the job from here on and continues what was shown up to `resumeFrom`. Events
     * shown after that point (there are none unless Redis lost writes) are dropped: onReset, then the kept events
     * again, in one task, so the page never shows a blank answer.
     *
     * @param {MessageEvent} message
     */
    resume(message) {
        const data = parse(message.data);
        const token = Number(data.fencingToken);
        const id = message.lastEventId || null;
        if (this.closed || token < this.epoch || (id && this.lastEventId && compareIds(id, this.lastEventId) <= 0)) {
            return;
        }
        const previous = this.epoch;
        const from = typeof data.resumeFrom === 'string' ? data.resumeFrom : null;
        const after = from ? this.kept.findIndex((e) => e.id && compareIds(e.id, from) > 0) : -1;
        this.epoch = token;
        this.shown = true;
        if (id) {
            this.lastEventId = id;
        }
        if (after >= 0) {
            this.kept = this.kept.slice(0, after);
            this.handlers.onReset?.(token, previous);
            for (const kept of this.kept) {
                this.progress(kept);
            }
        }
        const reason = typeof data.reason === 'string' ? data.reason : null;
        this.handlers.onResume?.({ type: 'resume', id, fencingToken: token, data, reason });
    }

    /**
     * A `reset` event: a newer run owns the job from here on (a greater token, or the same token after the run shown:
     * a new attempt under a token Redis handed out again, or a resume from an entry the stream no longer holds).
     */
    reset(data) {
        const token = Number(data.fencingToken);
        if (!this.closed && (token > this.epoch || (token === this.epoch && this.shown))) {
            this.newRun(token);
        }
    }

    newRun(token) {
        const previous = this.epoch;
        this.epoch = token;
        this.shown = false;
        this.kept = [];
        this.handlers.onReset?.(token, previous);
    }

    /**
     * The connection dropped. While the EventSource reconnects by itself (readyState CONNECTING) there is nothing to
     * do; when it gave up (the server answered with something else than a 200 event stream: a 503 while Redis is
     * down, a 502 from an ingress during a rollout) this follows the job again after a growing delay, from the last
     * event handled, unless statusUrl says the job does not exist.
     */
    async dropped(source) {
        if (this.closed || source !== this.source) {
            return;
        }
        if (source.readyState !== this.EventSourceType.CLOSED) {
            this.connection('reconnecting', {});
            return;
        }
        let status = null;
        if (this.options.statusUrl) {
            const response = await fetch(this.options.statusUrl, { headers: this.options.statusHeaders ?? {} })
                .catch(() => null);
            status = response ? response.status : null;
            if (this.closed) {
                return;
            }
            if (status === 404) {
                this.close();
                this.connection('closed', {});
                this.handlers.onError?.({ status, message: `there is no job at ${this.options.statusUrl}` });
                return;
            }
        }
        const initial = this.options.initialRetryDelayMs ?? 1000;
        const delayMs = Math.min(this.options.maxRetryDelayMs ?? 30000, initial * 2 ** this.refusals);
        this.refusals++;
        this.connection('retrying', { delayMs, status });
        this.retryTimer = setTimeout(() => {
            if (!this.closed) {
                this.open();
            }
        }, delayMs);
    }

    connection(state, detail) {
        if (!this.ended || state === 'closed') {
            this.handlers.onConnection?.(state, detail);
        }
    }
}

/**
 * Follows a flow's event stream (a deep research job and its children, `/research/stream/<jobId>/flow`): one
 * connection, each job's events handed to that job's own {@link FencedStream} (so each job has its own run, resets
 * and resumes, exactly as followJob keeps them), found by the event's `data.jobId`; a job's own stream entry id is
 * `data.eventId`. The stream's `id:` resumes every job at once after a reconnect. It ends when the server ends the
 * stream (every job of the flow ended) and the reconnect is answered 204.
 *
 * @param {string} streamUrl the flow's SSE stream
 * @param {string} rootId the root job's id
 * @param {(jobId: string) => FencedStreamHandlers} handlersOf the handlers of a job, asked once per job, when its
 *     first event arrives (the root's first)
 * @param {{onConnection?: Function, onError?: Function, onEnd?: () => void}} [handlers] the connection's state, a
 *     missing root job (as followJob's), and the end of the whole flow
 * @param {FencedStreamOptions} [options] as followJob's; `lastEventId` is a flow id
 * @returns {FencedFlow} call `close()` to stop following
 */
export function followFlow(streamUrl, rootId, handlersOf, handlers = {}, options = {}) {
    return new FencedFlow(streamUrl, rootId, handlersOf, handlers, options);
}

/** A followed flow stream; see {@link followFlow}. */
export class FencedFlow extends FencedStream {

    constructor(streamUrl, rootId, handlersOf, handlers, options) {
        super(streamUrl, handlers, options);
        this.rootId = rootId;
        this.handlersOf = handlersOf;
    }

    /** @returns {Map<string, FencedStream>} each job's view, by job id */
    get jobs() {
        this.jobViews ??= new Map();
        return this.jobViews;
    }

    listen(source) {
        for (const type of ['reset', 'resume', ...TYPES]) {
            source.addEventListener(type, (message) => this.dispatch(type, message));
        }
    }

    /** Hands a message to its job's view, then ends the flow once every job has ended. */
    dispatch(type, message) {
        if (this.closed) {
            return;
        }
        const data = parse(message.data);
        const jobId = typeof data.jobId === 'string' ? data.jobId : this.rootId;
        let job = this.jobs.get(jobId);
        if (!job) {
            job = new FencedStream(null, this.handlersOf(jobId) ?? {}, { EventSource: DETACHED });
            this.jobs.set(jobId, job);
        }
        const inner = { lastEventId: typeof data.eventId === 'string' ? data.eventId : '', data: message.data };
        if (type === 'reset') {
            job.reset(data);
        } else if (type === 'resume') {
            job.resume(inner);
        } else {
            job.event(type, inner);
        }
        if (message.lastEventId) {
            this.lastEventId = message.lastEventId;
        }
    }

    /**
     * The connection dropped or was refused. The server ends the stream once every job of the flow has ended, and
     * answers the reconnect with 204 (the EventSource is then closed): the flow has ended when every job seen has.
     * Anything else is handled as followJob handles it.
     */
    dropped(source) {
        const root = this.jobs.get(this.rootId);
        if (!this.closed && source === this.source && source.readyState === this.EventSourceType.CLOSED
                && root?.ended && [...this.jobs.values()].every((view) => view.ended)) {
            this.ended = true;
            this.close();
            this.connection('closed', {});
            this.handlers.onEnd?.();
            return;
        }
        super.dropped(source);
    }
}

/** The EventSource of a job followed inside a flow: none of its own (the flow's connection feeds it). */
class DETACHED {
    static CLOSED = 2;
    close() {
    }
    addEventListener() {
    }
}

/**
 * Orders two Redis stream entry ids (`<ms>-<seq>`).
 *
 * @param {string} a
 * @param {string} b
 * @returns {number} negative when a is before b, 0 when equal, positive after
 */
export function compareIds(a, b) {
    const [aMs, aSeq] = a.split('-').map(Number);
    const [bMs, bSeq] = b.split('-').map(Number);
    return aMs !== bMs ? aMs - bMs : (aSeq || 0) - (bSeq || 0);
}

function parse(text) {
    try {
        return JSON.parse(text);
    } catch (ignored) {
        return {};
    }
}

function withQuery(url, name, value) {
    const separator = url.includes('?') ? '&' : '?';
    return `${url}${separator}${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
}

// The research page's "Details for developers" (an ES module used by research-job.js): a <details> disclosure, closed
// by default, that holds what the service does to keep one coherent answer and a reader need not see: the job id, its
// state, the current run (attempt and fencing token) and its worker, the connection's state, each run of the job and of
// its sub-questions as it started or took over, and the raw reason of a failure.

/** The details of the job shown. */
export class Details {

    /** @param {object} page the page's elements, by name (jobId, state, run, worker, connection, runs, endReason) */
    constructor(page) {
        this.page = page;
    }

    /** Empties the details for a job. */
    clear(jobId) {
        this.page.jobId.textContent = jobId;
        this.state('waiting');
        this.page.run.textContent = 'none yet';
        this.page.worker.textContent = 'none yet';
        this.page.connection.textContent = 'connecting';
        this.page.runs.replaceChildren();
        this.page.endReason.hidden = true;
        this.page.endReason.textContent = '';
    }

    /** @param {string} state the job's state (`waiting`, `active`, `completed`, `failed`, `aborted`, `unknown`) */
    state(state) {
        this.page.state.textContent = state;
        this.page.state.dataset.state = state;
    }

    /**
     * The run shown now.
     *
     * @param {number} fencingToken its fencing token
     * @param {object|null} data the data of its `started` or `resume` event (`attempt`, `workerId`), null when unknown
     */
    current(fencingToken, data) {
        this.page.run.textContent = describeRun(fencingToken, data);
        if (data?.workerId) {
            this.page.worker.textContent = data.workerId;
        }
    }

    /**
     * Adds a line to the runs: one per run that started, took over or went on.
     *
     * @param {string} who whose run ("This job", "Sub-question 2")
     * @param {{fencingToken: number, data: object}} event its `started` or `resume` event
     * @param {string} what what the run did ("started", "took the job over; went on where it stopped")
     */
    run(who, event, what) {
        const item = document.createElement('li');
        const worker = event.data?.workerId ? ` on ${event.data.workerId}` : '';
        item.textContent = `${who}: ${what} (${describeRun(event.fencingToken, event.data)}${worker})`;
        item.dataset.fencingToken = String(event.fencingToken);
        this.page.runs.append(item);
    }

    /**
     * @param {string} state the connection's state (`connecting`, `live`, `reconnecting`, `retrying`, `closed`,
     *     `ended`)
     * @param {{status?: number|null}} detail a refused stream's HTTP status (`retrying`), null when unreachable
     */
    connection(state, detail) {
        const why = state === 'retrying' ? ` (${detail.status ? `HTTP ${detail.status}` : 'unreachable'})` : '';
        this.page.connection.textContent = state + why;
    }

    /** The job ended: a failure's or an abort's reason as the service gave it. */
    ended(type, data) {
        if (type !== 'completed' && data.reason) {
            this.page.endReason.textContent = `${type}: ${data.reason}`;
            this.page.endReason.hidden = false;
        }
    }
}

/** @returns {string} a run as the details name it: `attempt 2, fencing token 1796687016849` */
function describeRun(fencingToken, data) {
    return data?.attempt ? `attempt ${data.attempt}, fencing token ${fencingToken}` : `fencing token ${fencingToken}`;
}

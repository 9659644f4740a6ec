// The operator console: queues with their counts (an unserved one marked so), the job schedulers (next run in each
// one's own time zone), a queue's jobs with live progress bars for the running ones (from the queue's event feed over
// SSE, GET /admin/queues/{queue}/events), a job's detail with its last events, and the operator's actions (abort,
// resume, retry, delete, pause/resume a queue, throttle: the form shows the current one), the tenants (tenants.js)
// and the LLM budgets (llm-budgets.js).
// Plain JavaScript, no build step, no library: it only calls the operator API (/admin), whose credentials the browser
// already holds (HTTP Basic).

import { llmBudgetsView } from "./llm-budgets.js";
import { tenantsView } from "./tenants.js";

const $ = (id) => document.getElementById(id);
const state = { queues: [], queue: null, filter: "active", jobId: null, feed: null, refreshTimer: null };

/** Calls the operator API; answers the parsed JSON body, or throws an Error worded for a person. */
async function api(path, options = {}) {
    const init = { credentials: "same-origin", headers: { Accept: "application/json" }, ...options };
    if (options.body !== undefined) {
        init.headers = { ...init.headers, "Content-Type": "application/json" };
        init.body = JSON.stringify(options.body);
    }
    let response;
    try {
        response = await fetch(path, init);
    } catch (e) {
        throw new Error("The service cannot be reached. Check that it is running, then try again.");
    }
    const text = await response.text();
    const body = text ? safeJson(text) : null;
    if (response.ok) {
        return body;
    }
    throw new Error(plainWords(response.status, body));
}

function safeJson(text) {
    try {
        return JSON.parse(text);
    } catch (e) {
        return null;
    }
}

function plainWords(status, body) {
    const detail = body && body.message ? " (" + body.message + ")" : "";
    switch (status) {
        case 401: return "Your operator credentials were not accepted. Reload the page and sign in again.";
        case 403: return "Your user may not operate queues: it lacks the admin role.";
        case 404: return "It no longer exists: it may have finished and been removed" + detail + ".";
        case 409: return "Not possible in the job's current state" + detail + ".";
        case 400: return "The value was refused" + detail + ".";
        case 503: return "The service cannot reach Redis or the database right now; try again in a moment.";
        default: return "Something went wrong on the server (HTTP " + status + ")" + detail + ".";
    }
}

function showError(error) {
    $("error").textContent = error.message;
    $("error").hidden = false;
    $("message").hidden = true;
}

function showMessage(text) {
    $("message").textContent = text;
    $("message").hidden = false;
    $("error").hidden = true;
}

/** Runs an operator action: asks for confirmation first when {@code question} is given, then refreshes. */
async function act(question, action, done) {
    if (question && !window.confirm(question)) {
        return;
    }
    try {
        const result = await action();
        showMessage(done(result));
    } catch (e) {
        showError(e);
    }
    await refresh();
}

// ---- queues ---------------------------------------------------------------------------------------------------

async function loadQueues() {
    state.queues = await api("/admin/queues");
    const body = $("queues").tBodies[0];
    body.replaceChildren(...state.queues.map(queueRow));
    const select = $("queue");
    const names = state.queues.map((q) => q.queue);
    if (select.options.length !== names.length || [...select.options].some((o, i) => o.value !== names[i])) {
        select.replaceChildren(...names.map((name) => new Option(name, name)));
    }
    if (!state.queue || !names.includes(state.queue)) {
        const chunked = state.queues.find((q) => q.chunked);
        state.queue = chunked ? chunked.queue : names[0];
        follow(state.queue);
    }
    select.value = state.queue;
}

function queueRow(q) {
    const row = document.createElement("tr");
    row.dataset.queue = q.queue;
    row.dataset.served = String(q.served !== false);
    const cells = [q.queue, q.counts.waiting + q.counts.paused + q.counts.prioritized, q.counts.active,
        q.counts.delayed, q.counts["waiting-children"] ?? 0, q.counts.completed, q.counts.failed,
        q.paused ? "yes" : "no", age(q.oldestWaitingAge),
        `${q.lastMinute.completed} completed, ${q.lastMinute.failed} failed`];
    cells.forEach((value, i) => {
        const cell = document.createElement(i === 0 ? "th" : "td");
        if (i === 0) {
            cell.scope = "row";
        }
        cell.textContent = value;
        if (i === 0 && q.served === false) {
            const badge = document.createElement("span");
            badge.className = "badge unserved";
            badge.textContent = "unserved";
            badge.title = "No instance runs this queue's jobs: they wait until a worker serves it.";
            cell.append(" ", badge);
        }
        row.append(cell);
    });
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = q.paused ? "Resume queue" : "Pause queue";
    button.setAttribute("aria-label", (q.paused ? "Resume queue " : "Pause queue ") + q.queue);
    button.addEventListener("click", () => q.paused
        ? act(null, () => api(`/admin/queues/${q.queue}/resume`, { method: "POST" }), () => `Queue ${q.queue} resumed.`)
        : act(`Pause queue ${q.queue} for the whole fleet? Running jobs go on; no new job starts.`,
            () => api(`/admin/queues/${q.queue}/pause`, { method: "POST" }), () => `Queue ${q.queue} paused.`));
    const actions = document.createElement("td");
    actions.append(button);
    row.append(actions);
    return row;
}

// ---- schedules --------------------------------------------------------------------------------------------------

async function loadSchedules() {
    const schedulers = await api("/admin/schedulers");
    $("schedules").tBodies[0].replaceChildren(...schedulers.map(scheduleRow));
    $("no-schedules").hidden = schedulers.length > 0;
}

function scheduleRow(s) {
    const row = document.createElement("tr");
    row.dataset.scheduler = s.id;
    const every = s.pattern ?? `every ${s.every} ms`;
    const next = s.paused ? "paused" : (s.next ? inZone(s.next, s.tz) : "none (ended)");
    const last = (s.lastJobId ? `${s.lastJobId} (${s.lastJobState ?? "removed"})` : "none")
        + (s.refused ? `; tick ${new Date(s.refused).toISOString()} refused: ${s.refusedReason}` : "")
        + (s.skipped ? `; tick ${new Date(s.skipped).toISOString()} skipped (${s.skippedBecause})` : "");
    [s.id, s.queue, every, s.tz ?? "", next, s.jobs ?? s.ticks, last].forEach((value, i) => {
        const cell = document.createElement(i === 0 ? "th" : "td");
        if (i === 0) {
            cell.scope = "row";
        }
        cell.textContent = value;
        row.append(cell);
    });
    const actions = document.createElement("td");
    const path = `/admin/schedulers/${encodeURIComponent(s.id)}`;
    actions.append(
        scheduleButton(s.paused ? "Resume" : "Pause", s, () => api(`${path}/${s.paused ? "resume" : "pause"}`,
            { method: "POST" }), () => `Scheduler ${s.id} ${s.paused ? "resumed" : "paused"}.`),
        scheduleButton("Run now", s, () => api(`${path}/run-now`, { method: "POST" }), (r) => `Job ${r.jobId} added.`),
        scheduleButton("Remove", s, () => api(path, { method: "DELETE" }), () => `Scheduler ${s.id} removed; its jobs stay.`,
            `Remove scheduler ${s.id}? The jobs it produced stay.`));
    row.append(actions);
    return row;
}

/**
 * @param {number} ms a time, ms since the epoch
 * @param {string|undefined} tz an IANA time zone (a scheduler's), `Z` or none for UTC
 * @returns {string} the time as it reads in that zone, e.g. "27 Nov 2026, 09:00:00 GMT+9"
 */
function inZone(ms, tz) {
    const zone = !tz || tz === "Z" ? "UTC" : tz;
    try {
        return new Intl.DateTimeFormat("en-GB", { timeZone: zone, dateStyle: "medium", timeStyle: "long" })
            .format(new Date(ms));
    } catch (e) {
        return new Date(ms).toISOString(); // a zone this browser does not know
    }
}

function scheduleButton(text, s, action, done, question = null) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = text;
    button.setAttribute("aria-label", `${text} scheduler ${s.id}`);
    button.addEventListener("click", () => act(question, action, done));
    return button;
}

// ---- jobs -------------------------------------------------------------------------------------------------------

async function loadJobs() {
    const page = await api(`/admin/queues/${state.queue}/jobs?state=${state.filter}&count=50`);
    const list = $("jobs");
    list.replaceChildren(...page.jobs.map(jobItem));
    $("no-jobs").hidden = page.jobs.length > 0;
}

function jobItem(job) {
    const item = document.createElement("li");
    item.dataset.jobId = job.jobId;
    const link = document.createElement("button");
    link.type = "button";
    link.className = "job-link";
    link.textContent = job.jobId;
    link.setAttribute("aria-label", "Show job " + job.jobId);
    link.addEventListener("click", () => select(job.jobId));
    const stateCell = document.createElement("span");
    stateCell.className = "job-state";
    stateCell.textContent = job.state;
    const bar = document.createElement("progress");
    bar.max = 100;
    bar.dataset.jobId = job.jobId;
    bar.setAttribute("aria-label", "Progress of job " + job.jobId);
    const label = document.createElement("span");
    label.className = "job-progress";
    item.dataset.state = job.state;
    item.append(link, stateCell, bar, label);
    // Only a running job has a running bar: a finished one shows where it ended, one that waits or failed shows none.
    if (job.state === "completed") {
        bar.value = 100;
    } else if (job.state !== "active") {
        bar.hidden = true;
        label.textContent = job.failedReason || "";
    }
    if (job.tenant && job.tenant !== "default") {
        const tenant = document.createElement("span");
        tenant.className = "job-tenant";
        tenant.textContent = `tenant ${job.tenant}`;
        item.append(tenant);
    }
    if (job.schedulerId) {
        const schedule = document.createElement("span");
        schedule.className = "job-schedule";
        schedule.textContent = `scheduled by ${job.schedulerId}, tick ${new Date(job.tick).toISOString()}`;
        item.append(schedule);
    }
    if (job.state === "active") {
        showProgress(item, job.progress);
    }
    return item;
}

/** Shows a progress report (percent, and for a chunked job its cursor and counts) in a running job's row. */
function showProgress(item, progress) {
    if (!item || !progress || item.dataset.state !== "active") {
        return;
    }
    item.querySelector("progress").value = progress.percent ?? 0;
    item.querySelector(".job-progress").textContent = describe(progress);
}

function describe(progress) {
    if (progress.itemsDone !== undefined) {
        const total = progress.itemsTotal === null || progress.itemsTotal === undefined ? "?" : progress.itemsTotal;
        return `${progress.itemsDone} of ${total} items, cursor ${progress.cursor || "(start)"}`;
    }
    if (typeof progress.completionTokens === "number") {
        return `${progress.completionTokens}${progress.maxTokens ? ` of ${progress.maxTokens}` : ""} tokens`;
    }
    return progress.message || `${progress.percent ?? 0} %`;
}

// ---- one job ----------------------------------------------------------------------------------------------------

async function select(jobId, queue = state.queue) {
    if (queue !== state.queue) {
        state.queue = queue;
        $("queue").value = queue;
        follow(queue);
        await loadJobs();
    }
    state.jobId = jobId;
    $("detail").hidden = false;
    $("detail-id").textContent = jobId;
    await loadDetail();
    $("detail-title").scrollIntoView({ block: "nearest" });
}

function isChunked() {
    const queue = state.queues.find((q) => q.queue === state.queue);
    return Boolean(queue && queue.chunked);
}

async function loadDetail() {
    if (!state.jobId) {
        return;
    }
    const base = `/admin/queues/${state.queue}/jobs/${state.jobId}`;
    let job;
    try {
        job = await api(base);
    } catch (e) {
        $("detail-state").textContent = "gone";
        throw e;
    }
    const progress = job.progress || {};
    $("detail-state").textContent = job.state;
    $("detail-token").textContent = job.fencingToken;
    $("detail-tenant").textContent = job.tenant || "default";
    $("detail-worker").textContent = job.workerId || "none";
    $("detail-progress").value = job.state === "completed" ? 100 : (progress.percent ?? 0);
    $("detail-progress").hidden = !["active", "completed"].includes(job.state);
    $("detail-percent").textContent = $("detail-progress").hidden ? job.state : `${$("detail-progress").value} %`;
    $("detail-cursor").textContent = progress.cursor ?? "not chunked";
    $("detail-items").textContent = progress.itemsDone !== undefined
        ? `${progress.itemsDone} of ${progress.itemsTotal ?? "?"}` : "";
    $("detail-chunks").textContent = progress.chunksDone ?? "";
    $("detail-single-flight").textContent = job.data && job.data.channel ? job.data.channel : "none";
    $("detail-reason").textContent = job.failedReason || "";
    showFlow(job);
    $("detail-schedule").textContent = job.schedulerId
        ? `${job.schedulerId}, tick ${new Date(job.tick).toISOString()}` : "none";
    showTrace(job);
    const chunked = isChunked();
    if (chunked) {
        const bulk = await api(`/notifications/jobs/${state.jobId}`);
        const throttle = bulk.throttle || (job.data && job.data.throttle) || {};
        $("detail-throttle").textContent = `pause ${throttle.pauseBetweenChunksMs ?? 0} ms, `
            + (throttle.maxItemsPerSecond ? `at most ${throttle.maxItemsPerSecond} items/s` : "no rate limit")
            + (bulk.abortRequested ? " (stopping at the next chunk boundary)" : "");
        showThrottle(throttle);
        $("detail-cursor").textContent = bulk.cursor === "" ? "(start)" : bulk.cursor;
        $("detail-items").textContent = `${bulk.itemsDone} of ${bulk.itemsTotal ?? "?"}`;
        $("detail-chunks").textContent = bulk.chunksDone;
    } else {
        $("detail-throttle").textContent = "none (not chunked)";
    }
    $("throttle-form").hidden = !chunked;
    const finished = ["completed", "failed", "aborted"].includes(job.state);
    $("abort").disabled = finished;
    $("resume").disabled = !(chunked && job.state === "aborted");
    $("retry").disabled = job.state !== "failed";
    $("delete").disabled = job.state === "active";
    const events = await api(`${base}/events?last=15`);
    $("detail-events").replaceChildren(...events.map((e) => {
        const line = document.createElement("li");
        const why = { takeover: "taken over", retry: "retried", children: "after its children" }[e.reason] ?? "";
        const resumed = e.event === "resume"
            ? `continues after ${e.resumeFrom} (attempt ${e.attempt ?? "?"}${why ? `, ${why}` : ""})` : "";
        line.textContent = `${e.event} (run ${e.fencingToken ?? "?"}) ${resumed || e.message || e.reason || ""}`.trim();
        return line;
    }));
}

/**
 * Fills the throttle form with the job's current throttle, unless the operator is changing it (the form has the focus,
 * or was edited since it was filled for this job): the periodic refresh must not undo what they type.
 */
function showThrottle(throttle) {
    const form = $("throttle-form");
    const editing = form.dataset.jobId === state.jobId
        && (form.dataset.dirty === "true" || form.contains(document.activeElement));
    if (editing) {
        return;
    }
    form.dataset.jobId = state.jobId;
    form.dataset.dirty = "false";
    $("pause-ms").value = throttle.pauseBetweenChunksMs ?? 0;
    $("max-rate").value = throttle.maxItemsPerSecond ?? "";
}

/** Shows the job's trace: a link to it in the trace UI when one is configured (fq.tracing.ui-url), else its id. */
function showTrace(job) {
    const cell = $("detail-trace");
    if (job.traceUrl) {
        const link = document.createElement("a");
        link.href = job.traceUrl;
        link.target = "_blank";
        link.rel = "noopener";
        link.textContent = job.traceId;
        cell.replaceChildren(link);
    } else {
        cell.textContent = job.traceId || "none (tracing was off when it was added)";
    }
}

/** @return a wait in seconds as the console shows it: "none", "42 s", "3 min 5 s", "2 h 10 min" */
function age(seconds) {
    if (!seconds) {
        return "none";
    }
    const s = Math.round(seconds);
    if (s < 60) {
        return `${s} s`;
    }
    if (s < 3600) {
        return `${Math.floor(s / 60)} min ${s % 60} s`;
    }
    return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Shows a flow's links: a child's parent, a parent's children (each a link to its detail, in its own queue). */
function showFlow(job) {
    const parent = $("detail-parent");
    if (job.parentId) {
        parent.replaceChildren(jobLink(job.parentId, job.parentQueue, `${job.parentId} (${job.parentQueue})`));
    } else {
        parent.textContent = "none";
    }
    const children = job.children || [];
    $("detail-children-section").hidden = children.length === 0;
    $("detail-children").replaceChildren(...children.map((child) => {
        const item = document.createElement("li");
        const outcome = child.failedReason ? `: ${child.failedReason}` : "";
        item.append(jobLink(child.jobId, child.queue, child.jobId), ` in ${child.queue}, `
            + `${child.state ?? "removed"}${child.pending ? " (waited for)" : ""}${outcome}`);
        return item;
    }));
}

function jobLink(jobId, queue, text) {
    const link = document.createElement("button");
    link.type = "button";
    link.className = "job-link";
    link.textContent = text;
    link.setAttribute("aria-label", `Show job ${jobId} of queue ${queue}`);
    link.addEventListener("click", () => select(jobId, queue).catch(showError));
    return link;
}

function jobPath(suffix = "") {
    return `/admin/queues/${state.queue}/jobs/${state.jobId}${suffix}`;
}

function bindActions() {
    $("abort").addEventListener("click", () => act(isChunked()
        ? `Abort job ${state.jobId}? A running fan-out stops at its next chunk boundary, keeps its cursor and can be resumed.`
        : `Abort job ${state.jobId}? It is stopped for good and never retried.`,
        () => api(jobPath("/abort"), { method: "POST" }),
        (r) => r.state === "aborting" ? `Job ${r.jobId} stops at its next chunk boundary.` : `Job ${r.jobId} aborted.`));
    $("resume").addEventListener("click", () => act(null, () => api(jobPath("/resume"), { method: "POST" }),
        (r) => `Job ${r.jobId} resumed: it continues after its last committed chunk.`));
    $("retry").addEventListener("click", () => act(null, () => api(jobPath("/retry"), { method: "POST" }),
        (r) => `Job ${r.jobId} goes back to the queue.`));
    $("delete").addEventListener("click", () => act(`Delete job ${state.jobId} and all it stored? This cannot be undone.`,
        () => api(jobPath(), { method: "DELETE" }), (r) => {
            state.jobId = null;
            $("detail").hidden = true;
            return `Job ${r.jobId} deleted.`;
        }));
    // Edited ("input" as keys are typed, "change" for what sets the value otherwise): the refresh leaves it alone.
    for (const type of ["input", "change"]) {
        $("throttle-form").addEventListener(type, () => { $("throttle-form").dataset.dirty = "true"; });
    }
    $("throttle-form").addEventListener("submit", (event) => {
        event.preventDefault();
        const pause = $("pause-ms").value === "" ? 0 : Number($("pause-ms").value);
        const rate = $("max-rate").value === "" ? null : Number($("max-rate").value);
        act(null, async () => {
            const set = await api(jobPath("/throttle"), { method: "PUT",
                body: { pauseBetweenChunksMs: pause, maxItemsPerSecond: rate } });
            $("throttle-form").dataset.dirty = "false"; // applied: the form shows the job's throttle again
            document.activeElement?.blur();
            return set;
        }, (t) => `Throttle set: pause ${t.pauseBetweenChunksMs} ms, ` + (t.maxItemsPerSecond ? `${t.maxItemsPerSecond} items/s.` : "no rate limit."));
    });
    $("queue").addEventListener("change", () => {
        state.queue = $("queue").value;
        state.jobId = null;
        $("detail").hidden = true;
        follow(state.queue);
        refresh();
    });
    document.querySelectorAll("input[name=state]").forEach((radio) => radio.addEventListener("change", () => {
        state.filter = radio.value;
        refresh();
    }));
}

// ---- live feed --------------------------------------------------------------------------------------------------

/** Follows a queue's events: progress moves the bars at once; state changes refresh the lists soon after. */
function follow(queue) {
    if (state.feed) {
        state.feed.close();
    }
    const feed = new EventSource(`/admin/queues/${queue}/events`);
    state.feed = feed;
    feed.onopen = () => { $("feed-state").textContent = "live"; };
    feed.onerror = () => { $("feed-state").textContent = "reconnecting"; };
    feed.addEventListener("progress", (message) => {
        const event = JSON.parse(message.data);
        const progress = safeJson(event.data || "null");
        const item = document.querySelector(`#jobs li[data-job-id="${CSS.escape(event.jobId)}"]`);
        showProgress(item, progress);
        if (event.jobId === state.jobId && progress && $("detail-state").textContent === "active") {
            $("detail-progress").value = progress.percent ?? 0;
            $("detail-percent").textContent = `${progress.percent ?? 0} %`;
            if (progress.cursor !== undefined) {
                $("detail-cursor").textContent = progress.cursor;
                $("detail-items").textContent = `${progress.itemsDone} of ${progress.itemsTotal ?? "?"}`;
                $("detail-chunks").textContent = progress.chunksDone;
            }
        }
    });
    for (const name of ["waiting", "waiting-children", "active", "completed", "failed", "aborted", "stalled", "removed",
        "delayed", "paused", "resumed", "cleaned", "drained"]) {
        feed.addEventListener(name, () => scheduleRefresh());
    }
}

function scheduleRefresh() {
    if (state.refreshTimer === null) {
        state.refreshTimer = setTimeout(() => {
            state.refreshTimer = null;
            refresh();
        }, 250);
    }
}

async function refresh() {
    try {
        await loadQueues();
        await loadSchedules();
        await tenants.load();
        await llmBudgets.load();
        await loadJobs();
        await loadDetail();
    } catch (e) {
        showError(e);
    }
}

bindActions();
const tenants = tenantsView(api, act);
const llmBudgets = llmBudgetsView(api);
refresh();
setInterval(refresh, 5000);

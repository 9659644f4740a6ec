// The console's job view: one job on its own address (#/queues/{queue}/jobs/{jobId}), with the fields of its kind
// (kinds.js), the actions its state allows (none for a job the archive holds), and, behind a closed disclosure, its
// runs for developers: fencing token, attempts, worker, trace and last events.

import { el, localTime, stateName } from "./format.js";
import { describeProgress, kindOf, showBulk, showGeneric, showResearch, summary } from "./kinds.js";
import { jobHref, jobsHref } from "./router.js";

const $ = (id) => document.getElementById(id);
const WAITING = ["waiting", "paused", "prioritized", "delayed", "waiting-children"];

/**
 * @param {(path: string, options?: object) => Promise<any>} api calls the operator API
 * @param {(question: string|null, action: () => Promise<any>, done: (result: any) => string) => Promise<void>} act
 *        runs an operator action, then refreshes
 * @returns {{load: (route: object, queues: Array<object>) => Promise<void>, showProgress: (jobId: string,
 *          progress: object) => void}} the view; binds its buttons and throttle form at once
 */
export function jobView(api, act) {
    let current = null;
    const path = (suffix = "") => `/admin/queues/${encodeURIComponent(current.queue)}/jobs/`
        + `${encodeURIComponent(current.jobId)}${suffix}`;
    bindActions(api, act, () => current, path);

    async function load(route, queues) {
        const chunked = Boolean(queues.find((q) => q.queue === route.queue)?.chunked);
        if (!current || current.queue !== route.queue || current.jobId !== route.jobId) {
            $("detail-runs").open = false;
            $("detail-id").textContent = route.jobId;
            $("detail-name").textContent = "Job";
        }
        current = { queue: route.queue, jobId: route.jobId, chunked, state: null };
        $("detail-queue").textContent = route.queue;
        let job;
        try {
            job = await api(path());
        } catch (e) {
            current.state = null;
            $("detail-state").textContent = e.status === 404 ? "not found" : "unknown";
            showActions(null, chunked);
            throw e;
        }
        if (current.jobId !== job.jobId) {
            return; // another job was opened meanwhile
        }
        current.state = job.state;
        showHeader(job);
        showFacts(job);
        const kind = kindOf(job, chunked);
        for (const section of ["research", "bulk", "generic"]) {
            $(`detail-${section}`).hidden = section !== kind;
        }
        if (kind === "research") {
            showResearch(job);
        } else if (kind === "bulk") {
            showThrottle(showBulk(job), job);
            $("throttle-form").hidden = job.archived || ["completed", "failed"].includes(job.state);
        } else {
            showGeneric(job);
        }
        showChildren(job);
        showActions(job, chunked);
        showRuns(job);
        const events = await api(path("/events?last=15"));
        $("detail-events").replaceChildren(...events.map(eventLine));
    }

    /** Moves the job's bar and, for a fan-out, its counts, as its progress events arrive on the queue's feed. */
    function showProgress(jobId, progress) {
        if (!current || current.jobId !== jobId || current.state !== "active" || !progress) {
            return;
        }
        $("detail-progress").value = progress.percent ?? 0;
        $("detail-percent").textContent = `${progress.percent ?? 0} %, ${describeProgress(progress)}`;
        if (progress.cursor !== undefined) {
            $("detail-cursor").textContent = progress.cursor;
            $("detail-items").textContent = `${progress.itemsDone} of ${progress.itemsTotal ?? "?"}`;
            $("detail-chunks").textContent = progress.chunksDone;
        }
    }

    return { load, showProgress };
}

function showHeader(job) {
    $("detail-name").textContent = summary(job);
    $("detail-id").textContent = job.jobId;
    $("detail-state").textContent = stateName(job.state);
    $("detail-state").dataset.state = job.state;
    $("detail-state").className = `state ${job.state}`;
    $("detail-archived").hidden = !job.archived;
    const listed = job.state === "aborted" ? "failed" : job.state === "paused" ? "waiting" : job.state;
    $("detail-back").href = jobsHref(job.queue ?? $("detail-queue").textContent, listed);
    $("detail-back").textContent = "Jobs";
}

function showFacts(job) {
    const progress = job.progress || {};
    const bar = $("detail-progress");
    bar.hidden = !["active", "completed"].includes(job.state);
    bar.value = job.state === "completed" ? 100 : (progress.percent ?? 0);
    $("detail-percent").textContent = job.state === "active" ? `${bar.value} %, ${describeProgress(progress)}`
        : job.state === "completed" ? "done" : stateName(job.state);
    const reason = job.failedReason || "";
    $("detail-reason").textContent = reason;
    $("detail-reason").hidden = $("detail-reason-label").hidden = reason === "";
    $("detail-tenant").textContent = job.tenant || "default";
    $("detail-added").textContent = localTime(job.timestamp);
    $("detail-started").textContent = job.processedOn ? localTime(job.processedOn) : "not yet";
    $("detail-ended").textContent = job.finishedOn ? localTime(job.finishedOn) : "not yet";
    const scheduled = Boolean(job.schedulerId);
    $("detail-schedule").textContent = scheduled ? `${job.schedulerId}, tick ${localTime(job.tick)}` : "";
    $("detail-schedule").hidden = $("detail-schedule-label").hidden = !scheduled;
    const parent = $("detail-parent");
    parent.hidden = $("detail-parent-label").hidden = !job.parentId;
    parent.replaceChildren(...(job.parentId ? [el("a", { href: jobHref(job.parentQueue, job.parentId),
        textContent: `${job.parentId} (${job.parentQueue})`, "aria-label": `Show job ${job.parentId} of queue `
            + job.parentQueue })] : []));
}

/** Lists a flow's parent's children, each a link to its detail in its own queue. */
function showChildren(job) {
    const children = job.children || [];
    $("detail-flow").hidden = children.length === 0;
    $("detail-children").replaceChildren(...children.map((child) => el("li", {},
        el("a", { href: jobHref(child.queue, child.jobId), textContent: child.jobId,
            "aria-label": `Show job ${child.jobId} of queue ${child.queue}` }),
        ` in ${child.queue}, ${stateName(child.state)}${child.pending ? " (waited for)" : ""}`
            + (child.failedReason ? `: ${child.failedReason}` : ""))));
}

/**
 * Shows only the actions the job's state allows: abort while it waits or runs, resume an aborted chunked job, retry a
 * failed job, delete one that is not running; none for a job the archive holds (Redis no longer has it).
 */
function showActions(job, chunked) {
    const state = job ? job.state : null;
    const live = job !== null && !job.archived;
    $("abort").hidden = !(live && (WAITING.includes(state) || state === "active"));
    $("resume").hidden = !(live && chunked && state === "aborted");
    $("retry").hidden = !(live && state === "failed");
    $("delete").hidden = !(live && state !== "active");
    $("no-actions").hidden = !(job && job.archived);
    $("no-actions").textContent = "No action applies: the job ended and moved to the archive.";
}

function showRuns(job) {
    $("detail-token").textContent = job.fencingToken;
    $("detail-attempts").textContent = job.attempts === undefined ? `${job.attemptsMade} made`
        : `${job.attemptsMade} of ${job.attempts} made, ${job.attemptsStarted} started`
            + (job.stalledCounter ? `, stalled ${job.stalledCounter} times` : "");
    $("detail-worker").textContent = job.workerId || "none";
    const trace = $("detail-trace");
    if (job.traceUrl) {
        trace.replaceChildren(el("a", { href: job.traceUrl, target: "_blank", rel: "noopener", textContent: job.traceId }));
    } else {
        trace.textContent = job.traceId || "none (tracing was off when it was added)";
    }
}

function eventLine(e) {
    const why = { takeover: "taken over", retry: "retried", children: "after its children" }[e.reason] ?? "";
    const resumed = e.event === "resume"
        ? `continues after ${e.resumeFrom} (attempt ${e.attempt ?? "?"}${why ? `, ${why}` : ""})` : "";
    const time = e.timestamp ? `${new Date(e.timestamp).toLocaleTimeString()} ` : "";
    return el("li", { textContent: `${time}${e.event} (run ${e.fencingToken ?? "?"}) ${resumed || e.message || e.reason || ""}`
        .trim() });
}

/**
 * Fills the throttle form with the job's current throttle, unless the operator is changing it (the form has the focus,
 * or was edited since it was filled for this job): the periodic refresh must not undo what they type.
 */
function showThrottle(throttle, job) {
    const form = $("throttle-form");
    const editing = form.dataset.jobId === job.jobId
        && (form.dataset.dirty === "true" || form.contains(document.activeElement));
    if (editing) {
        return;
    }
    form.dataset.jobId = job.jobId;
    form.dataset.dirty = "false";
    $("pause-ms").value = throttle.pauseBetweenChunksMs ?? 0;
    $("max-rate").value = throttle.maxItemsPerSecond ?? "";
}

function bindActions(api, act, job, path) {
    $("abort").addEventListener("click", () => act(job().chunked
        ? `Abort job ${job().jobId}? A running fan-out stops at its next chunk boundary, keeps its cursor and can be resumed.`
        : `Abort job ${job().jobId}? It is stopped for good and never retried.`,
        () => api(path("/abort"), { method: "POST" }),
        (r) => r.state === "aborting" ? `Job ${r.jobId} stops at its next chunk boundary.` : `Job ${r.jobId} aborted.`));
    $("resume").addEventListener("click", () => act(null, () => api(path("/resume"), { method: "POST" }),
        (r) => `Job ${r.jobId} resumed: it continues after its last committed chunk.`));
    $("retry").addEventListener("click", () => act(null, () => api(path("/retry"), { method: "POST" }),
        (r) => `Job ${r.jobId} goes back to the queue.`));
    $("delete").addEventListener("click", () => {
        const { queue, jobId, state } = job();
        act(`Delete job ${jobId} and all it stored? This cannot be undone.`, async () => {
            const removed = await api(path(), { method: "DELETE" });
            location.hash = jobsHref(queue, state === "aborted" ? "failed" : state);
            return removed;
        }, (r) => `Job ${r.jobId} deleted.`);
    });
    const form = $("throttle-form");
    // Edited ("input" as keys are typed, "change" for what sets the value otherwise): the refresh leaves it alone.
    for (const type of ["input", "change"]) {
        form.addEventListener(type, () => { form.dataset.dirty = "true"; });
    }
    form.addEventListener("submit", (event) => {
        event.preventDefault();
        const pause = $("pause-ms").value === "" ? 0 : Number($("pause-ms").value);
        const rate = $("max-rate").value === "" ? null : Number($("max-rate").value);
        act(null, async () => {
            const set = await api(path("/throttle"), { method: "PUT",
                body: { pauseBetweenChunksMs: pause, maxItemsPerSecond: rate } });
            form.dataset.dirty = "false"; // applied: the form shows the job's throttle again
            document.activeElement?.blur();
            return set;
        }, (t) => `Throttle set: pause ${t.pauseBetweenChunksMs} ms, `
            + (t.maxItemsPerSecond ? `${t.maxItemsPerSecond} items/s.` : "no rate limit."));
    });
}

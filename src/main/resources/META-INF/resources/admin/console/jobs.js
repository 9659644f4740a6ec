// The console's Jobs view: one queue's jobs of one state, a page at a time (finished ones from Redis, then from the
// archive), each a link to its detail; the tabs name each state with its count. Running jobs' bars move live with the
// queue's feed (showProgress).

import { ago, count, el, localTime, stateName } from "./format.js";
import { describeProgress, outcome, summary } from "./kinds.js";
import { jobHref, jobsHref, STATES } from "./router.js";

const $ = (id) => document.getElementById(id);
const PAGE = 50;
const TAB_NAMES = { active: "Running", waiting: "Waiting", prioritized: "Prioritized", delayed: "Delayed",
    "waiting-children": "Waiting for children", failed: "Failed or aborted", completed: "Completed" };

/**
 * @param {(path: string, options?: object) => Promise<any>} api calls the operator API
 * @returns {{load: (route: object, queues: Array<object>) => Promise<void>, showProgress: (jobId: string,
 *          progress: object) => void}} the view; binds its queue picker at once
 */
export function jobsView(api) {
    let current = null;

    $("queue").addEventListener("change", () => {
        location.hash = jobsHref($("queue").value, current ? current.state : "active");
    });

    async function load(route, queues) {
        current = route;
        showQueues(queues, route);
        const queue = queues.find((q) => q.queue === route.queue);
        showTabs(route, queue);
        const page = await api(`/admin/queues/${encodeURIComponent(route.queue)}/jobs?state=${route.state}`
            + `&start=${route.start}&count=${PAGE}`);
        if (current !== route) {
            return; // another page was opened meanwhile
        }
        $("jobs").tBodies[0].replaceChildren(...page.jobs.map((job) => row(route.queue, job)));
        $("no-jobs").hidden = page.jobs.length > 0;
        $("no-jobs").textContent = route.start > 0 ? "No more jobs in this state." : `No job ${emptyState(route.state)}.`;
        showPages(route, page);
    }

    function showQueues(queues, route) {
        const names = queues.map((q) => q.queue);
        if (!names.includes(route.queue)) {
            names.push(route.queue);
        }
        const select = $("queue");
        if (select.options.length !== names.length || [...select.options].some((o, i) => o.value !== names[i])) {
            select.replaceChildren(...names.map((name) => new Option(name, name)));
        }
        select.value = route.queue;
        const queue = queues.find((q) => q.queue === route.queue);
        $("queue-note").textContent = !queue ? "" : [queue.paused ? "paused for the whole fleet" : "",
            queue.served === false ? "unserved: no instance runs its jobs" : "",
            queue.archive?.unavailable ? "the archive cannot be read now" : ""].filter(Boolean).join("; ");
    }

    function showTabs(route, queue) {
        const counts = queue ? queue.counts : {};
        $("states").replaceChildren(...STATES.map((state) => {
            const n = state === "waiting" ? (counts.waiting ?? 0) + (counts.paused ?? 0) : (counts[state] ?? 0);
            const tab = el("a", { href: jobsHref(route.queue, state), dataset: { state } },
                TAB_NAMES[state], " ", el("span", { className: "count", textContent: count(n) }));
            if (state === route.state) {
                tab.setAttribute("aria-current", "page");
            }
            return tab;
        }));
    }

    function showPages(route, page) {
        const first = page.jobs.length === 0 ? 0 : route.start + 1;
        const last = route.start + page.jobs.length;
        const archived = page.archived ? `, ${count(page.archived)} of them in the archive` : "";
        $("jobs-caption").textContent = `${TAB_NAMES[route.state]} jobs of ${route.queue}: ${count(first)} to `
            + `${count(last)} of ${count(page.total)}${archived}`
            + (route.state === "completed" || route.state === "failed" ? ", newest first" : "");
        const links = [];
        if (route.start > 0) {
            links.push(el("a", { href: jobsHref(route.queue, route.state, Math.max(0, route.start - PAGE)),
                textContent: "‹ Newer", rel: "prev" }));
        }
        if (last < page.total) {
            links.push(el("a", { href: jobsHref(route.queue, route.state, route.start + PAGE), textContent: "Older ›",
                rel: "next" }));
        }
        $("pages").replaceChildren(...links);
    }

    /** Shows a progress report (percent, and for a chunked job its cursor and counts) in a running job's row. */
    function showProgress(jobId, progress) {
        const row = $("jobs").querySelector(`tr[data-job-id="${CSS.escape(jobId)}"]`);
        if (!row || !progress || row.dataset.state !== "active") {
            return;
        }
        row.querySelector("progress").value = progress.percent ?? 0;
        row.querySelector(".job-progress").textContent = describeProgress(progress);
    }

    return { load, showProgress };
}

function row(queue, job) {
    const tr = el("tr", { dataset: { jobId: job.jobId, state: job.state } });
    const name = el("th", { scope: "row" },
        el("a", { className: "job-link", href: jobHref(queue, job.jobId), textContent: summary(job),
            "aria-label": "Show job " + job.jobId }),
        el("code", { className: "job-id", textContent: job.jobId }));
    if (job.tenant && job.tenant !== "default") {
        name.append(el("span", { className: "job-tenant", textContent: `tenant ${job.tenant}` }));
    }
    if (job.schedulerId) {
        name.append(el("span", { className: "job-schedule",
            textContent: `scheduled by ${job.schedulerId}, tick ${localTime(job.tick)}` }));
    }
    const state = el("td", {}, el("span", { className: `state ${job.state}`, textContent: stateName(job.state) }));
    if (job.archived) {
        state.append(" ", el("span", { className: "badge archived", textContent: "archived",
            title: "Read from the archive: Redis no longer holds this job" }));
    }
    const bar = el("progress", { max: 100, dataset: { jobId: job.jobId }, "aria-label": "Progress of job " + job.jobId });
    const line = el("span", { className: "job-progress" });
    // Only a running job has a bar: a finished one says how it ended, one that waits says nothing more.
    if (job.state === "active") {
        bar.value = job.progress?.percent ?? 0;
        line.textContent = job.progress ? describeProgress(job.progress) : "starting";
    } else {
        bar.hidden = true;
        line.textContent = outcome(job);
    }
    tr.append(name, state, el("td", {}, bar, " ", line), el("td", { textContent: when(job) }));
    return tr;
}

/** @returns {string} the time that matters for the job's state: when it ended, started, or was added */
function when(job) {
    if (job.finishedOn) {
        return `ended ${localTime(job.finishedOn)}`;
    }
    if (job.state === "active" && job.processedOn) {
        return `started ${ago(job.processedOn)}`;
    }
    return `added ${ago(job.timestamp)}`;
}

function emptyState(state) {
    return { active: "is running", waiting: "is waiting", prioritized: "is waiting by priority", delayed: "is delayed",
        "waiting-children": "waits for its children", failed: "failed or was aborted", completed: "completed" }[state];
}

// The console's Queues view: each queue with its jobs per state (finished ones in Redis and in the archive together),
// whether it is paused, how long its oldest ready job has waited and its throughput; an unserved queue (no instance
// runs its jobs) is marked so. Each queue's name opens its jobs; a button pauses or resumes it for the whole fleet.

import { age, count, el } from "./format.js";
import { jobsHref } from "./router.js";

const $ = (id) => document.getElementById(id);

/**
 * @param {(path: string, options?: object) => Promise<any>} api calls the operator API
 * @param {(question: string|null, action: () => Promise<any>, done: (result: any) => string) => Promise<void>} act
 *        runs an operator action, then refreshes
 * @returns {{show: (queues: Array<object>) => void}} the view
 */
export function queuesView(api, act) {
    function show(queues) {
        $("queues").tBodies[0].replaceChildren(...queues.map(row));
    }

    function row(q) {
        const c = q.counts;
        const tr = el("tr", { dataset: { queue: q.queue, served: String(q.served !== false) } });
        const name = el("th", { scope: "row" }, el("a", { href: jobsHref(q.queue, "active"), textContent: q.queue }));
        if (q.served === false) {
            name.append(" ", el("span", { className: "badge unserved", textContent: "unserved",
                title: "No instance runs this queue's jobs: they wait until a worker serves it." }));
        }
        tr.append(name);
        const cells = [c.waiting + c.paused + c.prioritized, c.active, c.delayed, c["waiting-children"] ?? 0,
            finished(c.completed, q.archive?.completed), finished(c.failed, q.archive?.failed),
            q.paused ? "yes" : "no", age(q.oldestWaitingAge),
            `${q.lastMinute.completed} completed, ${q.lastMinute.failed} failed`];
        cells.forEach((value) => tr.append(el("td", { textContent: value })));
        if (q.archive?.unavailable) {
            tr.cells[5].title = q.archive.unavailable;
            tr.cells[5].append(" (Redis only)");
        }
        const button = el("button", { type: "button", textContent: q.paused ? "Resume queue" : "Pause queue",
            "aria-label": (q.paused ? "Resume queue " : "Pause queue ") + q.queue });
        button.addEventListener("click", () => q.paused
            ? act(null, () => api(`/admin/queues/${encodeURIComponent(q.queue)}/resume`, { method: "POST" }),
                () => `Queue ${q.queue} resumed.`)
            : act(`Pause queue ${q.queue} for the whole fleet? Running jobs go on; no new job starts.`,
                () => api(`/admin/queues/${encodeURIComponent(q.queue)}/pause`, { method: "POST" }),
                () => `Queue ${q.queue} paused.`));
        tr.append(el("td", {}, button));
        return tr;
    }

    return { show };
}

/** @returns {string} a count of finished jobs, with how many of them are archived, e.g. "1,204 (1,200 archived)" */
function finished(total, archived) {
    return archived ? `${count(total)} (${count(archived)} archived)` : count(total);
}

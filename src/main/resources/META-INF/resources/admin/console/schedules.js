// The console's Schedules view: the job schedulers, each one's next run in its own time zone, its jobs and its last
// job (a link to it), with buttons to pause or resume it, run it now, and remove it (its jobs stay).

import { el } from "./format.js";
import { jobHref } from "./router.js";

const $ = (id) => document.getElementById(id);

/**
 * @param {(path: string, options?: object) => Promise<any>} api calls the operator API
 * @param {(question: string|null, action: () => Promise<any>, done: (result: any) => string) => Promise<void>} act
 *        runs an operator action, then refreshes
 * @returns {{load: () => Promise<void>}} the view
 */
export function schedulesView(api, act) {
    async function load() {
        const schedulers = await api("/admin/schedulers");
        $("schedules").tBodies[0].replaceChildren(...schedulers.map(row));
        $("no-schedules").hidden = schedulers.length > 0;
    }

    function row(s) {
        const tr = el("tr", { dataset: { scheduler: s.id } });
        const every = s.pattern ?? `every ${interval(s.every)}`;
        const next = s.paused ? "paused" : (s.next ? inZone(s.next, s.tz) : "none (ended)");
        tr.append(el("th", { scope: "row", textContent: s.id }));
        [s.queue, every, s.tz ?? "", next, s.jobs ?? s.ticks].forEach((value) => tr.append(el("td", { textContent: value })));
        const last = el("td");
        if (s.lastJobId) {
            last.append(el("a", { href: jobHref(s.queue, s.lastJobId), textContent: s.lastJobId }),
                ` (${s.lastJobState ?? "removed"})`);
        } else {
            last.append("none");
        }
        if (s.refused) {
            last.append(`; tick ${new Date(s.refused).toISOString()} refused: ${s.refusedReason}`);
        }
        if (s.skipped) {
            last.append(`; tick ${new Date(s.skipped).toISOString()} skipped (${s.skippedBecause})`);
        }
        tr.append(last);
        const path = `/admin/schedulers/${encodeURIComponent(s.id)}`;
        tr.append(el("td", {},
            button(s.paused ? "Resume" : "Pause", s, () => act(null, () => api(`${path}/${s.paused ? "resume" : "pause"}`,
                { method: "POST" }), () => `Scheduler ${s.id} ${s.paused ? "resumed" : "paused"}.`)),
            button("Run now", s, () => act(null, () => api(`${path}/run-now`, { method: "POST" }),
                (r) => `Job ${r.jobId} added.`)),
            button("Remove", s, () => act(`Remove scheduler ${s.id}? The jobs it produced stay.`,
                () => api(path, { method: "DELETE" }), () => `Scheduler ${s.id} removed; its jobs stay.`))));
        return tr;
    }

    return { load };
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

/** @returns {string} an interval in ms in the largest unit that says it exactly: "1 h", "90 s", "250 ms" */
function interval(ms) {
    for (const [unit, size] of [["d", 86_400_000], ["h", 3_600_000], ["min", 60_000], ["s", 1000]]) {
        if (ms >= size && ms % size === 0) {
            return `${ms / size} ${unit}`;
        }
    }
    return `${ms} ms`;
}

function button(text, s, onClick) {
    const b = el("button", { type: "button", textContent: text, "aria-label": `${text} scheduler ${s.id}` });
    b.addEventListener("click", onClick);
    return b;
}

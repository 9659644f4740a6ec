// The console's addresses (hash routes), so that each view, and each job's detail, has a URL an operator can reload,
// bookmark and share, and the browser's back button goes back:
//   #/queues/{queue}/jobs?state=completed&start=50   a queue's jobs of one state, a page of them
//   #/queues/{queue}/jobs/{jobId}                    one job
//   #/queues, #/schedules, #/tenants, #/llm-budgets  the other views
//   #/ (or nothing)                                  the jobs of the first served queue with work

/** The states the jobs view lists, in the order of its tabs. */
export const STATES = ["active", "waiting", "prioritized", "delayed", "waiting-children", "failed", "completed"];

const VIEWS = ["queues", "schedules", "tenants", "llm-budgets"];

/**
 * @param {string} hash the location's hash, e.g. "#/queues/deep-research/jobs?state=active"
 * @returns {{view: string, queue?: string, jobId?: string, state?: string, start?: number}} the route; `view` is
 *          "home" for none or one the console does not know
 */
export function parse(hash) {
    const [path, query = ""] = hash.replace(/^#/, "").split("?");
    const parts = path.split("/").filter((part) => part !== "").map(decodeURIComponent);
    if (parts.length === 1 && VIEWS.includes(parts[0])) {
        return { view: parts[0] };
    }
    if (parts.length >= 3 && parts[0] === "queues" && parts[2] === "jobs") {
        if (parts.length === 4) {
            return { view: "job", queue: parts[1], jobId: parts[3] };
        }
        const params = new URLSearchParams(query);
        const state = STATES.includes(params.get("state")) ? params.get("state") : "active";
        const start = Math.max(0, Number.parseInt(params.get("start") ?? "0", 10) || 0);
        return { view: "jobs", queue: parts[1], state, start };
    }
    return { view: "home" };
}

/** @returns {string} the address of a queue's jobs of one state, from `start` */
export function jobsHref(queue, state, start = 0) {
    return `#/queues/${encodeURIComponent(queue)}/jobs?state=${state}${start > 0 ? `&start=${start}` : ""}`;
}

/** @returns {string} the address of one job */
export function jobHref(queue, jobId) {
    return `#/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(jobId)}`;
}

/**
 * Picks where the console opens without a route: the first served queue with running jobs, else with jobs waiting,
 * else with delayed jobs or flows waiting for their children (the research queue first among equals: the API lists
 * it first); with no live work anywhere, the research queue's latest finished jobs.
 *
 * @param {Array<object>} queues the queues as GET /admin/queues answers them (the research queue first)
 * @returns {string} the address to open
 */
export function home(queues) {
    const served = queues.filter((q) => q.served !== false);
    const live = [
        ["active", (c) => c.active],
        ["waiting", (c) => c.waiting + c.paused],
        ["prioritized", (c) => c.prioritized],
        ["delayed", (c) => c.delayed],
        ["waiting-children", (c) => c["waiting-children"] ?? 0],
    ];
    for (const [state, count] of live) {
        const queue = served.find((q) => count(q.counts) > 0);
        if (queue) {
            return jobsHref(queue.queue, state);
        }
    }
    const first = served[0] ?? queues[0];
    if (!first) {
        return "#/queues";
    }
    return jobsHref(first.queue, first.counts.failed > 0 && first.counts.completed === 0 ? "failed" : "completed");
}

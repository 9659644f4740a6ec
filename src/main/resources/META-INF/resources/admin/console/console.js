// The operator console: a view per concern behind a navigation (Jobs, Queues, Schedules, Tenants, LLM budgets), each
// on its own address (router.js), a job's detail too, so that the browser's back button and a shared link work.
// Without an address it opens on the jobs of the first served queue with work. The current view refreshes every 5 s
// and when the followed queue's jobs change state (feed.js); running jobs' bars move with its progress events.
// Plain JavaScript modules, no build step, no library: it only calls the operator API (/admin), whose credentials the
// browser already holds (HTTP Basic).

import { actions, api, clearMessages, showError } from "./api.js";
import { queueFeed } from "./feed.js";
import { jobView } from "./job.js";
import { jobsView } from "./jobs.js";
import { llmBudgetsView } from "./llm-budgets.js";
import { queuesView } from "./queues.js";
import { home, jobsHref, parse } from "./router.js";
import { schedulesView } from "./schedules.js";
import { tenantsView } from "./tenants.js";

const $ = (id) => document.getElementById(id);
const act = actions(refresh);
const views = {
    jobs: jobsView(api),
    job: jobView(api, act),
    queues: queuesView(api, act),
    schedules: schedulesView(api, act),
    tenants: tenantsView(api, act),
    "llm-budgets": llmBudgetsView(api),
};
const feed = queueFeed((jobId, progress) => {
    views.jobs.showProgress(jobId, progress);
    views.job.showProgress(jobId, progress);
}, () => refresh());

/** Shows the view the address names, with what it shows read again. */
async function refresh() {
    const route = parse(location.hash);
    try {
        const queues = await api("/admin/queues");
        if (route.view === "home") {
            location.replace(home(queues)); // not a step of its own: "back" leaves the console
            return;
        }
        show(route);
        if (route.queue) {
            feed.follow(route.queue);
        } else if (queues.length > 0) {
            feed.follow(queues[0].queue);
        }
        switch (route.view) {
            case "jobs":
            case "job":
                await views[route.view].load(route, queues);
                break;
            case "queues":
                views.queues.show(queues);
                break;
            default:
                await views[route.view].load();
        }
    } catch (e) {
        showError(e);
    }
}

/** Shows one view, marks its place in the navigation, and points "Jobs" at the queue and state last looked at. */
function show(route) {
    const name = route.view === "job" ? "job" : route.view;
    document.querySelectorAll("main > .view").forEach((view) => {
        view.hidden = view.id !== `view-${name}`;
    });
    document.querySelectorAll("header nav a").forEach((link) => {
        const here = link.dataset.view === (name === "job" ? "jobs" : name);
        if (here) {
            link.setAttribute("aria-current", "page");
        } else {
            link.removeAttribute("aria-current");
        }
    });
    if (route.view === "jobs") {
        $("nav-jobs").href = jobsHref(route.queue, route.state);
    }
    const titles = { jobs: `${route.queue} jobs`, job: `job ${route.jobId}`, queues: "queues", schedules: "schedules",
        tenants: "tenants", "llm-budgets": "LLM budgets" };
    document.title = `${titles[route.view]}: fenced-queue operator console`;
}

// A link an operator follows opens a new view: what the last one said goes. (A view an action opens keeps the
// action's message.)
document.addEventListener("click", (event) => {
    if (event.target.closest("a[href^='#']")) {
        clearMessages();
    }
});
window.addEventListener("hashchange", () => refresh());
refresh();
setInterval(refresh, 5000);

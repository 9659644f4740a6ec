// The console's LLM budgets view: each LLM endpoint and model the fleet calls (GET /admin/llm/budgets), with the
// requests and tokens per minute in force and what is left of them, the calls in flight, and whether the fleet waits
// for the server: paused as it asked, or its circuit open (until the next probe), and since when it has been
// unavailable.

const $ = (id) => document.getElementById(id);

/**
 * @param {(path: string, options?: object) => Promise<any>} api calls the operator API
 * @returns {{load: () => Promise<void>}} the view
 */
export function llmBudgetsView(api) {
    async function load() {
        const budgets = await api("/admin/llm/budgets");
        $("llm-budgets").tBodies[0].replaceChildren(...budgets.map(row));
        $("no-llm-budgets").hidden = budgets.length > 0;
    }

    function row(b) {
        const tr = document.createElement("tr");
        tr.dataset.model = b.model;
        tr.dataset.state = waiting(b) ? "waiting" : "open";
        [b.model || "(the server's)", b.endpoint, limit(b.requests), limit(b.tokens), calls(b.concurrency),
            status(b)].forEach((value, i) => {
            const cell = document.createElement(i === 0 ? "th" : "td");
            if (i === 0) {
                cell.scope = "row";
            }
            cell.textContent = value;
            tr.append(cell);
        });
        return tr;
    }

    return { load };
}

function waiting(b) {
    return b.pausedUntil !== undefined || b.circuit.state !== "closed";
}

/** @returns "1,200 of 5,000 a minute left", or "no limit" */
function limit(l) {
    return l ? `${l.left.toLocaleString("en")} of ${l.limit.toLocaleString("en")} a minute left` : "no limit";
}

function calls(c) {
    return c.max ? `${c.inFlight} of ${c.max}` : `${c.inFlight}`;
}

/** @returns whether calls go, and if not, why and until when (the times are the Redis clock's, shown as local time) */
function status(b) {
    const parts = [];
    if (b.pausedUntil !== undefined) {
        parts.push(`paused by the server until ${time(b.pausedUntil)}`);
    }
    if (b.circuit.state === "open") {
        parts.push(`down: circuit open, next probe at ${time(b.circuit.nextProbeAt)}`);
    } else if (b.circuit.state === "probing") {
        parts.push("down: circuit open, probing");
    }
    if (b.unavailableSince !== undefined) {
        parts.push(`unavailable for ${Math.round((b.readAt - b.unavailableSince) / 1000)} s`);
    }
    return parts.length === 0 ? "calls go" : parts.join("; ");
}

function time(ms) {
    return new Date(ms).toLocaleTimeString("en-GB");
}

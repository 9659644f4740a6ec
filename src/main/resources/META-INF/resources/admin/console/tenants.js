// The console's Tenants view: each tenant that has settings, with its weight under fair dispatch, its concurrency
// and rate limits, its token quota,
// the tokens its research jobs spent this day and this month (and what they cost, with fq.llm.price.*), its jobs waiting and running in every queue, and its share
// of each queue's slots in the last minute; a form
// that sets a tenant's weight, limit and quota (PUT /admin/tenants/{id}, for every instance at once), and a reset per
// tenant (DELETE: back to weight 1, no limit and no quota).

const $ = (id) => document.getElementById(id);

/**
 * @param {(path: string, options?: object) => Promise<any>} api calls the operator API
 * @param {(question: string|null, action: () => Promise<any>, done: (result: any) => string) => Promise<void>} act
 *        runs an operator action, then refreshes
 * @returns {{load: () => Promise<void>}} the view; binds its form at once
 */
export function tenantsView(api, act) {
    $("tenant-form").addEventListener("submit", (event) => {
        event.preventDefault();
        const id = $("tenant-id").value.trim();
        const body = { weight: Number($("tenant-weight").value || 1) };
        if ($("tenant-concurrency").value !== "") {
            body.concurrency = Number($("tenant-concurrency").value);
        }
        if ($("tenant-rate-max").value !== "") {
            body.rateLimit = { max: Number($("tenant-rate-max").value), duration: Number($("tenant-rate-window").value) };
        }
        if ($("tenant-quota").value !== "") {
            body.tokenQuota = { tokens: Number($("tenant-quota").value), period: $("tenant-period").value };
        }
        act(null, () => api(`/admin/tenants/${encodeURIComponent(id)}`, { method: "PUT", body }),
            (t) => `Tenant ${t.tenant}: weight ${t.weight}, `
                + (t.concurrency ? `at most ${t.concurrency} running, ` : "")
                + (t.rateLimit ? `${rate(t.rateLimit)}, ` : "")
                + (t.tokenQuota ? `quota ${quota(t.tokenQuota)}.` : "no quota."));
    });

    async function load() {
        const tenants = await api("/admin/tenants");
        $("tenants").tBodies[0].replaceChildren(...tenants.map(row));
        $("no-tenants").hidden = tenants.length > 0;
    }

    function row(t) {
        const tr = document.createElement("tr");
        tr.dataset.tenant = t.tenant;
        const jobs = Object.values(t.jobs ?? {});
        const waiting = jobs.reduce((sum, q) => sum + q.ready, 0);
        const running = jobs.reduce((sum, q) => sum + q.running, 0);
        [t.tenant, t.weight, t.concurrency ?? "no limit", t.rateLimit ? rate(t.rateLimit) : "no limit",
            t.tokenQuota ? quota(t.tokenQuota) : "none", spent(t.tokens.today, t.cost?.today),
            spent(t.tokens.thisMonth, t.cost?.thisMonth), waiting, running, shares(t.jobs ?? {})].forEach((value, i) => {
            const cell = document.createElement(i === 0 ? "th" : "td");
            if (i === 0) {
                cell.scope = "row";
            }
            cell.textContent = value;
            tr.append(cell);
        });
        const actions = document.createElement("td");
        actions.append(
            button("Edit", t, () => {
                $("tenant-id").value = t.tenant;
                $("tenant-weight").value = t.weight;
                $("tenant-concurrency").value = t.concurrency ?? "";
                $("tenant-rate-max").value = t.rateLimit ? t.rateLimit.max : "";
                $("tenant-rate-window").value = t.rateLimit ? t.rateLimit.duration : 60000;
                $("tenant-quota").value = t.tokenQuota ? t.tokenQuota.tokens : "";
                $("tenant-period").value = t.tokenQuota ? t.tokenQuota.period : "day";
                $("tenant-id").focus();
            }),
            button("Reset", t, () => act(`Put tenant ${t.tenant} back to weight 1 and no quota?`,
                () => api(`/admin/tenants/${encodeURIComponent(t.tenant)}`, { method: "DELETE" }),
                () => `Tenant ${t.tenant} is back to the defaults.`)));
        tr.append(actions);
        return tr;
    }

    return { load };
}

/**
 * @param {number} tokens tokens spent
 * @param {number|undefined} cost what they cost, in the prices' currency; undefined without prices
 * @returns {string} e.g. "12,400" or "12,400 (cost 0.0186)"
 */
function spent(tokens, cost) {
    const count = tokens.toLocaleString("en");
    return cost === undefined ? count : `${count} (cost ${cost.toLocaleString("en", { maximumFractionDigits: 6 })})`;
}

/** @returns each queue's share of slots in the last minute, as "queue 42 %", or "none" when no job held one */
function shares(jobs) {
    const held = Object.entries(jobs).filter(([, q]) => q.slotShare !== undefined);
    return held.length === 0 ? "none"
        : held.map(([queue, q]) => `${queue} ${Math.round(q.slotShare * 100)} %`).join(", ");
}

function rate(r) {
    return `${r.max.toLocaleString("en")} starts per ${r.duration.toLocaleString("en")} ms`;
}

function quota(q) {
    return `${q.tokens.toLocaleString("en")} tokens a ${q.period}`;
}

function button(text, t, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.setAttribute("aria-label", `${text} tenant ${t.tenant}`);
    b.addEventListener("click", onClick);
    return b;
}

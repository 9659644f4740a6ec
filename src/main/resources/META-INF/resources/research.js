// The research page (an ES module): asks for a question (and, when the service divides its work among tenants named in
// a header, for the user's tenant, which the browser keeps), starts a job with POST /research/start and follows it
// (research-job.js, through /fenced-stream.js). What went wrong is said in words, never as the API's raw message.
// What the service needs is read once from GET /research/settings.
import { JobFollower } from '/research-job.js';

const TENANT_KEY = 'fq.research.tenant';
/** A tenant id, as the service checks it (TenantIds). */
const TENANT_ID = /^[A-Za-z0-9._~@:-]{1,64}$/;

const $ = (id) => document.getElementById(id);
const page = {
    form: $('start-form'), query: $('query'), deep: $('deep'), start: $('start'), startError: $('start-error'),
    tenantRow: $('tenant-row'), tenant: $('tenant'),
    job: $('job'), kind: $('job-kind'), question: $('job-question'), percent: $('percent'),
    progressLabel: $('progress-label'), progressMeta: $('progress-meta'), notice: $('notice'), events: $('events'),
    children: $('children'), childList: $('child-list'), answer: $('answer'), answerName: $('answer-name'),
    answerText: $('answer-text'), tokens: $('tokens'), outcome: $('outcome'), outcomeText: $('outcome-text'),
    abort: $('abort'), abortError: $('abort-error'), details: $('details'), jobId: $('job-id'), state: $('state'),
    run: $('run'), worker: $('worker'), connection: $('connection'), runs: $('runs'), endReason: $('end-reason'),
};

/** What the service needs to start a job (GET /research/settings): the header that names the tenant, if any. */
let tenancy = { source: 'none' };
let current = null;

/** @returns {object} the headers of the page's own calls: the tenant's, when the service takes it from a header */
function headers() {
    const tenant = page.tenant.value.trim();
    return tenancy.header && tenant ? { [tenancy.header]: tenant } : {};
}

/** Asks the service what it needs; shows the tenant field when it takes the tenant from a header. */
async function loadSettings() {
    try {
        const response = await fetch('/research/settings');
        if (response.ok) {
            const settings = await response.json();
            useTenancy(settings.tenancy ?? { source: 'none' });
        }
    } catch (ignored) {
        // the start says what is missing, if anything
    }
}

function useTenancy(settings) {
    tenancy = settings;
    page.tenantRow.hidden = settings.source !== 'header';
    if (settings.source === 'header' && !page.tenant.value) {
        page.tenant.value = localStorage.getItem(TENANT_KEY) ?? '';
    }
}

/** @returns {string|null} what is wrong with the tenant entered, in words; null when it will do */
function tenantProblem() {
    if (tenancy.source !== 'header') {
        return null;
    }
    const tenant = page.tenant.value.trim();
    if (!tenant) {
        return 'Enter your tenant to start research.';
    }
    return TENANT_ID.test(tenant) ? null
        : 'A tenant is 1 to 64 letters, digits or the signs . _ ~ - @ : (no spaces); check the one you entered.';
}

/**
 * @param {Response|null} response the service's answer, null when it could not be reached
 * @param {string} doing what the page tried, for the words ("start the research")
 * @returns {Promise<string>} what went wrong, in words
 */
async function problem(response, doing) {
    if (!response) {
        return `The service cannot be reached, so the page could not ${doing}. Check your connection and try again.`;
    }
    let body = {};
    try {
        body = await response.json();
    } catch (ignored) {
        // no JSON body: the status says enough
    }
    const message = String(body.message ?? '');
    if (response.status === 400 && body.field && (body.field === tenancy.header || /tenant/i.test(message))) {
        if (tenancy.source !== 'header') { // the service's settings changed since the page was loaded
            useTenancy({ source: 'header', header: body.field });
        }
        page.tenant.focus();
        return /must name/.test(message) ? 'Enter your tenant to start research.'
            : 'The service does not accept that tenant: a tenant is 1 to 64 letters, digits or the signs . _ ~ - @ :.';
    }
    if (response.status === 400 && body.field === 'query') {
        return /blank/.test(message) ? 'Write a question first: it is blank.'
            : 'The question cannot be researched as it is: it may hold up to 4,000 characters.';
    }
    const retry = response.headers.get('Retry-After');
    switch (response.status) {
        case 401: return `Sign in first: the service needs to know who you are to ${doing}.`;
        case 403: return `This research belongs to someone else, so the page could not ${doing}.`;
        case 404: return 'There is no such research any more.';
        case 409: return 'The research has already ended.';
        case 413: return 'The question is too long: it may hold up to 4,000 characters.';
        case 429: return `Too much research was started at once; try again${retry ? ` in ${retry} s` : ' shortly'}.`;
        case 503: return `The service is busy or briefly unavailable; try again${retry ? ` in ${retry} s` : ' shortly'}.`;
        default: return `The page could not ${doing}: the service answered with an error (${response.status}).`;
    }
}

function showError(element, text) {
    element.textContent = text;
    element.hidden = false;
}

/**
 * Shows the job panel, empty, and follows the job's stream.
 *
 * @param {string} jobId the job to follow
 * @param {string} streamUrl its SSE stream (the flow stream of a deep research job)
 * @param {boolean} deep whether it is a deep research job
 * @param {string|null} query its question, or null to ask the job's status for it
 */
function follow(jobId, streamUrl, deep, query) {
    if (current) {
        current.close();
    }
    page.job.hidden = false;
    page.kind.textContent = deep ? 'Deep research' : 'Research';
    page.question.textContent = query ?? '';
    page.notice.hidden = true;
    page.notice.textContent = '';
    page.outcome.hidden = true;
    delete page.outcome.dataset.event;
    page.outcomeText.textContent = '';
    page.abort.hidden = false;
    page.abortError.hidden = true;
    page.answer.hidden = true;
    page.answerName.textContent = deep ? 'Report' : 'Answer';
    page.answerText.setAttribute('aria-busy', 'true');
    delete page.answerText.dataset.streamed;
    page.tokens.textContent = '';
    page.childList.replaceChildren();
    page.children.hidden = true;
    page.events.replaceChildren();
    page.answerText.replaceChildren();
    delete page.answerText.dataset.source;
    page.details.open = false;
    current = new JobFollower(page, jobId, streamUrl, deep, headers());
    current.details.clear(jobId);
    current.meter.indeterminate('Waiting to start');
    if (query === null) {
        showQuestion(jobId);
    }
    const url = new URL(window.location.href);
    url.searchParams.set('jobId', jobId);
    if (deep) {
        url.searchParams.set('mode', 'deep');
    } else {
        url.searchParams.delete('mode');
    }
    window.history.replaceState(null, '', url);
}

/** Shows the question of a job opened from a link (the status's `data.query`). */
async function showQuestion(jobId) {
    try {
        const response = await fetch(`/research/status/${encodeURIComponent(jobId)}`, { headers: headers() });
        if (response.ok) {
            const status = await response.json();
            if (current?.jobId === jobId && typeof status.data?.query === 'string') {
                page.question.textContent = status.data.query;
            }
        }
    } catch (ignored) {
        // the stream says what became of the job
    }
}

page.form.addEventListener('submit', async (event) => {
    event.preventDefault();
    page.startError.hidden = true;
    const missing = tenantProblem();
    if (missing) {
        showError(page.startError, missing);
        page.tenant.focus();
        return;
    }
    if (tenancy.source === 'header') {
        localStorage.setItem(TENANT_KEY, page.tenant.value.trim());
    }
    page.start.disabled = true;
    try {
        const query = page.query.value;
        const response = await fetch('/research/start', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', ...headers() },
            body: JSON.stringify({ query, mode: page.deep.checked ? 'deep' : 'plain' }),
        }).catch(() => null);
        if (response?.status !== 202) {
            showError(page.startError, await problem(response, 'start the research'));
            return;
        }
        const started = await response.json();
        follow(started.jobId, started.flowStreamUrl ?? started.streamUrl, Boolean(started.flowStreamUrl), query.trim());
        page.question.focus(); // a screen reader goes on with the job, which the page now follows
    } finally {
        page.start.disabled = false;
    }
});

// Ctrl+Enter (or Cmd+Enter) in the question starts the research, as in chat applications.
page.query.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        page.form.requestSubmit();
    }
});

page.tenant.addEventListener('change', () => {
    if (!tenantProblem()) {
        localStorage.setItem(TENANT_KEY, page.tenant.value.trim());
    }
});

page.abort.addEventListener('click', async () => {
    if (!current) {
        return;
    }
    page.abortError.hidden = true;
    const response = await fetch(`/research/abort/${encodeURIComponent(current.jobId)}`, {
        method: 'POST', headers: headers(),
    }).catch(() => null);
    if (!response?.ok) {
        showError(page.abortError, await problem(response, 'abort the research'));
    }
});

// A link to the page with ?jobId=... follows that job (the page puts it there, so a reload keeps following).
await loadSettings();
const params = new URL(window.location.href).searchParams;
const linked = params.get('jobId');
if (linked) {
    const deep = params.get('mode') === 'deep';
    follow(linked, `/research/stream/${encodeURIComponent(linked)}${deep ? '/flow' : ''}`, deep, null);
}

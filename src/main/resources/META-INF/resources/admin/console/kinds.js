// What the console shows of each kind of job: a research job (its question, mode, answer and tokens), a chunked job
// of a fan-out (its cursor, items, chunks and throttle), or any other job (its data and result as JSON); a flow's
// parent also lists its children. One line of a job for the lists (summary), and of a progress report.

import { count } from "./format.js";

const $ = (id) => document.getElementById(id);

/**
 * @param {object} job the job as the operator API shows it
 * @param {boolean} chunked whether its queue runs chunked jobs (fan-outs)
 * @returns {"bulk"|"research"|"generic"} its kind
 */
export function kindOf(job, chunked) {
    if (chunked) {
        return "bulk";
    }
    return job.data && typeof job.data.query === "string" ? "research" : "generic";
}

/** @returns {string} one line that says what the job is: a research job's question, a fan-out's channel, its name */
export function summary(job) {
    const data = job.data ?? {};
    if (typeof data.query === "string") {
        const question = data.query.length > 120 ? data.query.slice(0, 117) + "…" : data.query;
        return data.mode === "deep" ? `Deep research: ${question}` : question;
    }
    if (typeof data.channel === "string") {
        return `Fan-out to ${data.channel}`;
    }
    return job.name || job.jobId;
}

/** @returns {string} how a finished job ended, in a line: the start of its answer, or why it failed */
export function outcome(job) {
    if (job.failedReason) {
        return job.failedReason;
    }
    if (job.state !== "completed") {
        return "";
    }
    const answer = job.result && (job.result.text ?? job.result.summary);
    if (typeof answer !== "string" || answer === "") {
        return "done";
    }
    const plain = plainText(answer);
    return plain.length > 90 ? plain.slice(0, 87) + "…" : plain;
}

/** @returns {string} a model's Markdown as one line of plain text: no headings' #, emphasis, code marks or links */
function plainText(markdown) {
    return markdown.replace(/^\s{0,3}(#{1,6}|[-*+]|\d+\.|>)\s+/gm, "")
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
        .replace(/[*_`~]+/g, "")
        .replace(/\s+/g, " ")
        .trim();
}

/** @returns {string} a progress report in words: items and cursor, tokens, or its message */
export function describeProgress(progress) {
    if (progress.itemsDone !== undefined) {
        const total = progress.itemsTotal === null || progress.itemsTotal === undefined ? "?" : count(progress.itemsTotal);
        return `${count(progress.itemsDone)} of ${total} items, cursor ${progress.cursor || "(start)"}`;
    }
    if (typeof progress.completionTokens === "number") {
        return `${count(progress.completionTokens)}${progress.maxTokens ? ` of ${count(progress.maxTokens)}` : ""} tokens`;
    }
    return progress.message || `${progress.percent ?? 0} %`;
}

/** Fills the research section: the question, the mode, the tokens its runs spent and the answer so far. */
export function showResearch(job) {
    const data = job.data ?? {};
    $("detail-question").textContent = data.query;
    $("detail-mode").textContent = data.mode === "deep"
        ? "deep research: a plan, one child job per sub-question, then a report" : "plain: one answer";
    $("detail-tokens").textContent = tokens(job.tokens);
    const result = job.result ?? {};
    const answer = result.text ?? result.summary ?? (typeof result === "string" ? result : null);
    $("detail-answer").textContent = answer ?? (job.state === "active" ? "Not yet: the job is running."
        : job.state === "completed" ? "The job completed without an answer." : "No answer.");
    $("detail-answer").classList.toggle("none", answer === null || answer === undefined);
}

/** @returns {string} the LLM tokens of every run, e.g. "1,200 prompt, 3,400 completion (250 by runs cut off)" */
function tokens(byOutcome) {
    if (!byOutcome) {
        return "none counted";
    }
    let prompt = 0;
    let completion = 0;
    let lost = 0;
    for (const [outcome, t] of Object.entries(byOutcome)) {
        if (outcome === "saved" || outcome === "takeovers") {
            continue;
        }
        prompt += t.promptTokens ?? 0;
        completion += t.completionTokens ?? 0;
        lost += t.lostCompletionTokens ?? 0;
    }
    return `${count(prompt)} prompt, ${count(completion)} completion` + (lost ? ` (${count(lost)} lost by runs cut off)` : "");
}

/** Fills the fan-out section from the job's committed cursor (the sink's) and its throttle. */
export function showBulk(job) {
    $("detail-cursor").textContent = job.cursor === "" || job.cursor === undefined ? "(start)" : job.cursor;
    $("detail-items").textContent = `${job.itemsDone ?? 0} of ${job.itemsTotal ?? "?"}`;
    $("detail-chunks").textContent = job.chunksDone ?? 0;
    const throttle = job.throttle || (job.data && job.data.throttle) || {};
    $("detail-throttle").textContent = `pause ${throttle.pauseBetweenChunksMs ?? 0} ms, `
        + (throttle.maxItemsPerSecond ? `at most ${throttle.maxItemsPerSecond} items/s` : "no rate limit")
        + (job.abortRequested ? " (stopping at the next chunk boundary)" : "");
    $("detail-single-flight").textContent = job.singleFlightKey ?? "none";
    return throttle;
}

/** Fills the section of any other job: its data and result as JSON. */
export function showGeneric(job) {
    $("detail-data").textContent = job.data === undefined ? "none" : JSON.stringify(job.data, null, 2);
    $("detail-result").textContent = job.result === undefined ? "none" : JSON.stringify(job.result, null, 2);
}

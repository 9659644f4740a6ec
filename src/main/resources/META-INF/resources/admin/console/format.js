// How the console words and formats what it shows: state names as an operator reads them, times in the browser's
// local time, waits and durations, and a small helper that builds elements.

const STATE_NAMES = {
    active: "running",
    waiting: "waiting",
    paused: "waiting (queue paused)",
    prioritized: "waiting (prioritized)",
    delayed: "delayed",
    "waiting-children": "waiting for its children",
    completed: "completed",
    failed: "failed",
    aborted: "aborted",
};

/** @returns {string} a job state as an operator reads it, e.g. "running" for `active` */
export function stateName(state) {
    return STATE_NAMES[state] ?? state ?? "removed";
}

/** @returns {string} a time (ms since the epoch) in the browser's local time, e.g. "8 Dec 2026, 09:14:03", or "" */
export function localTime(ms) {
    if (ms === undefined || ms === null) {
        return "";
    }
    return new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

/** @returns {string} a wait in seconds as the console shows it: "none", "42 s", "3 min 5 s", "2 h 10 min" */
export function age(seconds) {
    if (!seconds) {
        return "none";
    }
    const s = Math.round(seconds);
    if (s < 60) {
        return `${s} s`;
    }
    if (s < 3600) {
        return `${Math.floor(s / 60)} min ${s % 60} s`;
    }
    if (s < 86400) {
        return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
    }
    return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** @returns {string} how long ago a time (ms since the epoch) was, e.g. "3 min 5 s ago" */
export function ago(ms) {
    return `${age(Math.max(1, (Date.now() - ms) / 1000))} ago`;
}

/** @returns {string} a count with thousands separators, e.g. "12,400" */
export function count(n) {
    return Number(n ?? 0).toLocaleString("en");
}

/**
 * @param {string} tag the element's tag
 * @param {object} props properties to set (`className`, `textContent`, `href`, `dataset` ...), attributes for
 *        names with a dash (`aria-label`)
 * @param {...(Node|string)} children appended in order
 * @returns {HTMLElement} the element
 */
export function el(tag, props = {}, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(props)) {
        if (name === "dataset") {
            Object.assign(element.dataset, value);
        } else if (name.includes("-")) {
            element.setAttribute(name, value);
        } else {
            element[name] = value;
        }
    }
    element.append(...children);
    return element;
}

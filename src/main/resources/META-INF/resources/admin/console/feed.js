// The live feed of one queue's events (GET /admin/queues/{queue}/events, SSE): progress events go to the views at
// once (bars move), state changes ask for a refresh soon after (several at once make one).

import { safeJson } from "./api.js";

const $ = (id) => document.getElementById(id);
const STATE_EVENTS = ["waiting", "waiting-children", "active", "completed", "failed", "aborted", "stalled", "removed",
    "delayed", "paused", "resumed", "cleaned", "drained"];

/**
 * @param {(jobId: string, progress: object) => void} onProgress called with each progress report of a job
 * @param {() => void} onChange called (at most every 250 ms) after jobs changed state
 * @returns {{follow: (queue: string) => void}} the feed; following a queue stops following the one before
 */
export function queueFeed(onProgress, onChange) {
    let source = null;
    let queue = null;
    let timer = null;

    function follow(name) {
        if (name === queue) {
            return;
        }
        source?.close();
        queue = name;
        source = new EventSource(`/admin/queues/${encodeURIComponent(name)}/events`);
        source.onopen = () => { $("feed-state").textContent = `live (${name})`; };
        source.onerror = () => { $("feed-state").textContent = "reconnecting"; };
        source.addEventListener("progress", (message) => {
            const event = JSON.parse(message.data);
            onProgress(event.jobId, safeJson(event.data || "null"));
        });
        for (const name of STATE_EVENTS) {
            source.addEventListener(name, changed);
        }
    }

    function changed() {
        if (timer === null) {
            timer = setTimeout(() => {
                timer = null;
                onChange();
            }, 250);
        }
    }

    return { follow };
}

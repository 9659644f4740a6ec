// Load client of SseBenchmark: opens `perJob` WHATWG EventSource subscribers (npm `eventsource`) on each stream URL
// given, and for every event that carries `sentAtMicros` (the publisher's wall clock, µs since the epoch) records
// the delivery latency; checks that each subscriber sees the ids in increasing order, none twice.
//
//   node client.mjs <perJob> <expectedPerSubscriber> <timeoutMs> <url> [<url> ...]
//
// Prints one JSON line per phase on stdout: {"phase":"connected",...} once every subscriber is open, then
// {"phase":"done", deliveries, missing, outOfOrder, errors, spanMs, p50Ms, p90Ms, p99Ms, maxMs} once every subscriber
// has its expected events, or timeoutMs after the first delivery. spanMs: first to last delivery.
import { EventSource } from 'eventsource';

const [perJob, expected, timeoutMs, ...urls] = [Number(process.argv[2]), Number(process.argv[3]),
    Number(process.argv[4]), ...process.argv.slice(5)];
const latencies = [];
let deliveries = 0;
let outOfOrder = 0;
let errors = 0;
let opened = 0;
let firstAt = null;
let lastAt = null;
let complete = 0;
let resets = 0;
let laterRuns = 0;
const sources = [];

function nowMicros() {
    return (performance.timeOrigin + performance.now()) * 1000;
}

function compareIds(a, b) {
    const [aMs, aSeq] = a.split('-').map(Number);
    const [bMs, bSeq] = b.split('-').map(Number);
    return aMs !== bMs ? aMs - bMs : aSeq - bSeq;
}

for (const url of urls) {
    for (let i = 0; i < perJob; i++) {
        const source = new EventSource(url);
        let lastId = null;
        let counted = false;
        let received = 0;
        source.onopen = () => {
            if (!counted) {
                counted = true;
                opened++;
                if (opened === urls.length * perJob) {
                    console.log(JSON.stringify({ phase: 'connected', subscribers: opened }));
                }
            }
        };
        source.onerror = () => errors++;
        const onEvent = (message) => {
            const at = nowMicros();
            if (message.lastEventId) {
                if (lastId !== null && compareIds(message.lastEventId, lastId) <= 0) {
                    outOfOrder++;
                }
                lastId = message.lastEventId;
            }
            const data = JSON.parse(message.data);
            const sent = data.sentAtMicros;
            if (data.fencingToken > 1) {
                laterRuns++;
            }
            if (typeof sent === 'number') {
                firstAt ??= at;
                lastAt = at;
                deliveries++;
                latencies.push((at - sent) / 1000);
                if (++received === expected) {
                    complete++;
                }
            }
        };
        source.addEventListener('progress', onEvent);
        source.addEventListener('reset', () => resets++);
        source.addEventListener('message', onEvent);
        sources.push(source);
    }
}

function finish() {
    for (const source of sources) {
        source.close();
    }
    latencies.sort((a, b) => a - b);
    const at = (q) => latencies.length ? Number(latencies[Math.min(latencies.length - 1,
        Math.floor(q * latencies.length))].toFixed(2)) : null;
    console.log(JSON.stringify({ phase: 'done', subscribers: opened, deliveries,
        missing: expected * urls.length * perJob - deliveries, outOfOrder, errors, resets, laterRuns,
        spanMs: firstAt === null ? 0 : (lastAt - firstAt) / 1000,
        p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99), maxMs: at(1) }));
    process.exit(0);
}

const progress = setInterval(() => {
    console.error(JSON.stringify({ opened, errors, deliveries }));
    if (opened === urls.length * perJob) {
        clearInterval(progress);
    }
}, 5000);
const timer = setInterval(() => {
    if (complete === urls.length * perJob || firstAt !== null && nowMicros() - firstAt >= timeoutMs * 1000) {
        clearInterval(timer);
        finish();
    }
}, 50);
process.stdin.on('data', (chunk) => {
    if (chunk.toString().includes('stop')) {
        finish();
    }
});

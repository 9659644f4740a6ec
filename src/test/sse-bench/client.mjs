// Load client of SseBenchmark: opens `perJob` WHATWG EventSource subscribers (npm `eventsource`) on each stream URL
// given, and for every event that carries `sentAtMicros` (the publisher's wall clock, µs since the epoch) records
// the delivery latency; checks that each subscriber sees the ids in increasing order, none twice. A subscriber closes
// its stream at the job's terminal event, as /fenced-stream.js does.
//
//   node client.mjs <perJob> <expectedPerSubscriber> <timeoutMs> <url> [<url> ...]
//
// Prints one JSON line per phase on stdout: {"phase":"connected",...} once every subscriber is open, then
// {"phase":"done", deliveries, missing, outOfOrder, errors, spanMs, p50Ms, p90Ms, p99Ms, maxMs, fromAppendP50Ms,
// fromAppendP99Ms} once every subscriber has its expected events, or timeoutMs after the first delivery. spanMs: first
// to last delivery; pNNMs: from the publisher's clock before the append; fromAppendPNNMs: from the time part of the
// event's id (Redis's clock at the XADD, ms resolution: about 0.5 ms more than the truth on average).
import { EventSource } from 'eventsource';

const [perJob, expected, timeoutMs, ...urls] = [Number(process.argv[2]), Number(process.argv[3]),
    Number(process.argv[4]), ...process.argv.slice(5)];
const latencies = [];
// From the entry id's time part (Redis's clock when the fenced append ran its XADD, ms resolution) to receipt.
const fromAppend = [];
// The same after the first STEADY_AFTER_MS of deliveries: the steady state, without the burst of 100 jobs starting.
const STEADY_AFTER_MS = 2000;
const steady = [];
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
        let firstToken = null; // the run this subscriber saw first: a later run has a greater token
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
            firstToken ??= data.fencingToken;
            if (data.fencingToken > firstToken) {
                laterRuns++;
            }
            // Past `expected`, the job goes on a little longer (its end is not part of the measured window).
            if (typeof sent === 'number' && received < expected) {
                firstAt ??= at;
                lastAt = at;
                deliveries++;
                latencies.push((at - sent) / 1000);
                if (at - firstAt >= STEADY_AFTER_MS * 1000) {
                    steady.push((at - sent) / 1000);
                }
                if (message.lastEventId) {
                    fromAppend.push(at / 1000 - Number(message.lastEventId.split('-')[0]));
                }
                if (++received === expected) {
                    complete++;
                }
            }
        };
        source.addEventListener('progress', onEvent);
        source.addEventListener('reset', () => resets++);
        // As /fenced-stream.js does: the job ended, so the stream is closed rather than reconnected (an EventSource
        // reconnects when the server ends a response; 10,000 at once would load both sides).
        for (const terminal of ['completed', 'failed', 'aborted']) {
            source.addEventListener(terminal, () => source.close());
        }
        source.addEventListener('message', onEvent);
        sources.push(source);
    }
}

function finish() {
    for (const source of sources) {
        source.close();
    }
    latencies.sort((a, b) => a - b);
    fromAppend.sort((a, b) => a - b);
    steady.sort((a, b) => a - b);
    const quantile = (values, q) => values.length ? Number(values[Math.min(values.length - 1,
        Math.floor(q * values.length))].toFixed(2)) : null;
    const at = (q) => quantile(latencies, q);
    console.log(JSON.stringify({ phase: 'done', subscribers: opened, deliveries,
        missing: expected * urls.length * perJob - deliveries, outOfOrder, errors, resets, laterRuns,
        spanMs: firstAt === null ? 0 : (lastAt - firstAt) / 1000,
        p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99), maxMs: at(1),
        fromAppendP50Ms: quantile(fromAppend, 0.5), fromAppendP99Ms: quantile(fromAppend, 0.99),
        steadyP50Ms: quantile(steady, 0.5), steadyP99Ms: quantile(steady, 0.99), steadyMaxMs: quantile(steady, 1) }));
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

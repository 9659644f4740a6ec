'use strict';
// The BullMQ side of QueueBenchmark's no-op throughput figures (see BENCHMARKS.md), run by BullMqFigure
// against the same redis-server as the Java side. It does what ThroughputFigure does:
//   1. adds `--jobs` no-op jobs to a fresh queue, one `Queue.add` each, at most 500 in flight
//      (ioredis pipelines them on one connection), removeOnComplete: true;
//   2. starts one `Worker` with a no-op processor at `--concurrency` and times it from `run()` to the
//      `completed` event of the last job;
//   3. over that processing phase only, reads Redis's CPU time (`INFO cpu`: used_cpu_sys + used_cpu_user,
//      before and after, on a separate connection) and this process's CPU time (`process.cpuUsage()`).
// With `--commandstats`, Redis's command statistics are reset just before the processing phase and
// returned as read right after it (`INFO commandstats`, commands called inside scripts included).
// `--warmup N` first processes N jobs the same way on another queue, unmeasured.
// Prints one JSON line on stdout; exits with 1 (message on stderr) on any failure.
//
// usage: node bench.cjs --port 6379 --concurrency 50 --jobs 20000 --queue bench-x [--warmup 0] [--commandstats]

const { Queue, Worker } = require('bullmq');
const IORedis = require('ioredis');

const ADDS_IN_FLIGHT = 500;
const STUCK_MS = 10_000;

function options(argv) {
    const opts = { port: 6379, concurrency: 1, jobs: 20000, queue: 'bench-bullmq', warmup: 0, commandstats: false };
    for (let i = 0; i < argv.length; i++) {
        const name = argv[i].replace(/^--/, '');
        if (name === 'commandstats') {
            opts.commandstats = true;
        } else if (name in opts) {
            const value = argv[++i];
            opts[name] = name === 'queue' ? value : Number(value);
        } else {
            throw new Error(`unknown option ${argv[i]}`);
        }
    }
    return opts;
}

/** @returns Redis's CPU time so far (INFO cpu: used_cpu_sys + used_cpu_user), µs */
async function redisCpuMicros(admin) {
    const info = await admin.info('cpu');
    let seconds = 0;
    for (const line of info.split(/\r?\n/)) {
        if (line.startsWith('used_cpu_sys:') || line.startsWith('used_cpu_user:')) {
            seconds += Number(line.slice(line.indexOf(':') + 1));
        }
    }
    return Math.round(seconds * 1e6);
}

function cpuMicros() {
    const usage = process.cpuUsage();
    return usage.user + usage.system;
}

/** Adds `jobs` no-op jobs, at most ADDS_IN_FLIGHT unanswered; @returns the wall time, ms */
async function addJobs(queue, jobs) {
    const start = performance.now();
    let next = 0;
    async function lane() {
        while (next < jobs) {
            next++;
            await queue.add('noop', {}, { removeOnComplete: true });
        }
    }
    await Promise.all(Array.from({ length: Math.min(ADDS_IN_FLIGHT, jobs) }, lane));
    return performance.now() - start;
}

/**
 * Waits until this process is idle: at most 10 ms of CPU time in a 200 ms window (V8 compiles on threads of its
 * own, after the code that made it compile), or 10 s at most, as the Java side waits for its JVM
 * (BenchContext.awaitQuietJvm). @returns how long it waited, ms
 */
async function quiet() {
    const start = performance.now();
    let before = cpuMicros();
    while (performance.now() - start < 10000) {
        await new Promise(resolve => setTimeout(resolve, 200));
        const now = cpuMicros();
        if (now - before <= 10000) {
            break;
        }
        before = now;
    }
    return performance.now() - start;
}

/** Resolves once `count` completed events were seen; rejects when none came for STUCK_MS or a job failed. */
function completions(worker, count) {
    return new Promise((resolve, reject) => {
        let completed = 0;
        let lastChange = performance.now();
        const watchdog = setInterval(() => {
            if (performance.now() - lastChange > STUCK_MS) {
                clearInterval(watchdog);
                reject(new Error(`worker stuck at ${completed} of ${count} completed jobs`));
            }
        }, 1000);
        worker.on('completed', () => {
            completed++;
            lastChange = performance.now();
            if (completed === count) {
                const end = performance.now();
                clearInterval(watchdog);
                resolve(end);
            }
        });
        worker.on('failed', (job, error) => {
            clearInterval(watchdog);
            reject(new Error(`job ${job && job.id} failed: ${error && error.message}`));
        });
        worker.on('error', error => {
            clearInterval(watchdog);
            reject(error);
        });
    });
}

/**
 * Adds and processes `jobs` jobs on queue `name`, then deletes the queue's keys unless `keep`
 * (the Java side empties Redis before each side, and counts what each side left).
 * @returns the figures of the add phase and of the processing phase
 */
async function measure(connection, admin, name, jobs, concurrency, commandstats, keep) {
    const queue = new Queue(name, { connection });
    await queue.waitUntilReady();
    const redisBeforeAdds = await redisCpuMicros(admin);
    const cpuBeforeAdds = cpuMicros();
    const addMs = await addJobs(queue, jobs);
    const addCpu = cpuMicros() - cpuBeforeAdds;
    const addRedisCpu = (await redisCpuMicros(admin)) - redisBeforeAdds;
    // The processing phase starts on an idle process: compilation the adds caused is not counted in it.
    const quietMs = await quiet();
    // Connections are made and the Redis version checked before the clock starts.
    const worker = new Worker(name, async () => null, { connection, concurrency, autorun: false });
    await worker.waitUntilReady();
    const done = completions(worker, jobs);
    if (commandstats) {
        await admin.config('RESETSTAT');
    }
    const redisBefore = await redisCpuMicros(admin);
    const cpuBefore = cpuMicros();
    const start = performance.now();
    worker.run().catch(() => {});
    const end = await done;
    const cpu = cpuMicros() - cpuBefore;
    const redisCpu = (await redisCpuMicros(admin)) - redisBefore;
    const stats = commandstats ? await admin.info('commandstats') : undefined;
    await worker.close();
    if (!keep) {
        await queue.obliterate({ force: true });
    }
    await queue.close();
    return {
        jobsPerSecond: jobs * 1000 / (end - start),
        addsPerSecond: jobs * 1000 / addMs,
        redisCpuMicrosPerAdd: addRedisCpu / jobs,
        nodeCpuMicrosPerAdd: addCpu / jobs,
        quietAfterAddsMs: quietMs,
        redisCpuMicrosPerJob: redisCpu / jobs,
        nodeCpuMicrosPerJob: cpu / jobs,
        commandstats: stats,
    };
}

async function main() {
    const opts = options(process.argv.slice(2));
    const connection = { host: '127.0.0.1', port: opts.port, maxRetriesPerRequest: null };
    const admin = new IORedis(connection);
    try {
        if (opts.warmup > 0) {
            await measure(connection, admin, `${opts.queue}-warmup`, opts.warmup, opts.concurrency, false, false);
        }
        const result = await measure(connection, admin, opts.queue, opts.jobs, opts.concurrency, opts.commandstats, true);
        const line = {
            jobsPerSecond: result.jobsPerSecond,
            addsPerSecond: result.addsPerSecond,
            redisCpuMicrosPerAdd: result.redisCpuMicrosPerAdd,
            nodeCpuMicrosPerAdd: result.nodeCpuMicrosPerAdd,
            quietAfterAddsMs: result.quietAfterAddsMs,
            redisCpuMicrosPerJob: result.redisCpuMicrosPerJob,
            nodeCpuMicrosPerJob: result.nodeCpuMicrosPerJob,
            jobs: opts.jobs,
            concurrency: opts.concurrency,
            warmupJobs: opts.warmup,
            bullmq: require('bullmq/package.json').version,
            ioredis: require('ioredis/package.json').version,
            node: process.version,
        };
        if (result.commandstats !== undefined) {
            line.commandstats = result.commandstats;
        }
        process.stdout.write(JSON.stringify(line) + '\n');
    } finally {
        admin.disconnect();
    }
}

main().then(() => process.exit(0), error => {
    process.stderr.write(`bullmq bench failed: ${error && error.stack || error}\n`);
    process.exit(1);
});

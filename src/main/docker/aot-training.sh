#!/usr/bin/env bash
# The training run of the JVM's AOT cache (JDK 25: JEP 483 classes loaded and linked ahead of time, JEP 514's
# one-step -XX:AOTCacheOutput, JEP 515 method profiles). It starts the application under -XX:AOTCacheOutput, drives
# the work a deployed instance does, then stops it with SIGTERM; at exit the JVM writes the cache. A JVM started
# later with -XX:AOTCache=<that file> finds those classes loaded and linked, and compiles the hot methods with the
# profiles of this run instead of first gathering its own.
#
# The work: research jobs answered by the built-in simulator in OpenAI's streaming format (the LLM connector, its
# SSE decoding, fenced appends of every delta, 50 at once), some followed over SSE; a fan-out of subscribers into
# Redis in chunks (fq.bulk.sink=redis: no PostgreSQL needed); the status, history and valid-history reads; health
# and metrics. Nothing here is timed: only what runs matters, not how fast.
#
# Used by src/main/docker/Dockerfile.jvm-aot (in the image, on the image's JVM: a cache is only used by the JVM
# build that wrote it), by AotCacheIT and by AotCacheBenchmark.
#
# Environment:
#   APP_JAR    the application as an uber-jar (./mvnw package -Paot); required. The cache keeps only classes of the
#              JVM's own class loaders, so the fast-jar's class loader would leave the application out of it
#   JAVA       the java of JDK 25 or later that will run the application with the cache (default: java on the PATH)
#   AOT_CACHE  the cache file to write (default: app.aot beside APP_JAR)
#   REDIS_URL  a Redis only this run uses, as redis://host:port (default: start REDIS_SERVER on REDIS_PORT)
#   REDIS_SERVER, REDIS_PORT  the redis-server binary and its port when REDIS_URL is empty (default:
#              redis-server on the PATH, 6399)
#   PORT       the application's HTTP port on 127.0.0.1 (default 8089)
#   JOBS       research jobs (default 300)
#   LOG        the application's log (default: training.log beside AOT_CACHE)
#
# Exit status: 0 with the cache written; 1 with the reason on stderr (the application's log is kept).
set -euo pipefail

: "${APP_JAR:?must name the application as an uber-jar}"
JAVA=${JAVA:-java}
AOT_CACHE=${AOT_CACHE:-$(dirname "$APP_JAR")/app.aot}
PORT=${PORT:-8089}
JOBS=${JOBS:-300}
LOG=${LOG:-$(dirname "$AOT_CACHE")/training.log}
BASE="http://127.0.0.1:$PORT"

app_pid=""
redis_pid=""
cleanup() {
    [ -n "$app_pid" ] && kill -KILL "$app_pid" 2>/dev/null || true
    [ -n "$redis_pid" ] && kill -TERM "$redis_pid" 2>/dev/null || true
}
trap cleanup EXIT
fail() {
    echo "aot-training: $*; the application's log: $LOG" >&2
    exit 1
}

if [ -z "${REDIS_URL:-}" ]; then
    REDIS_PORT=${REDIS_PORT:-6399}
    "${REDIS_SERVER:-redis-server}" --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no \
        --maxmemory-policy noeviction --daemonize no >/dev/null &
    redis_pid=$!
    REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
fi

rm -f "$AOT_CACHE"
mkdir -p "$(dirname "$AOT_CACHE")" "$(dirname "$LOG")"
"$JAVA" -XX:AOTCacheOutput="$AOT_CACHE" \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$PORT" -Dquarkus.redis.hosts="$REDIS_URL" \
    -Dfq.worker.id=aot-training -Dfq.worker.concurrency=50 \
    -Dfq.simulator.enabled=true -Dfq.llm.protocol=openai \
    -Dfq.simulator.answer.words=40 -Dfq.simulator.answer.token-interval=5ms \
    -Dfq.bulk.sink=redis \
    -jar "$APP_JAR" >"$LOG" 2>&1 &
app_pid=$!

for _ in $(seq 1 600); do
    curl -sf -o /dev/null "$BASE/q/health/ready" && break
    kill -0 "$app_pid" 2>/dev/null || fail "the application exited before it was ready"
    sleep 0.2
done
curl -sf -o /dev/null "$BASE/q/health/ready" || fail "the application was not ready within two minutes"

job_ids=()
for i in $(seq 1 "$JOBS"); do
    reply=$(curl -sf -X POST "$BASE/research/start" -H 'Content-Type: application/json' \
        -d "{\"query\": \"training question $i\"}") || fail "POST /research/start was refused"
    job_ids+=("$(printf '%s' "$reply" | sed -n 's/.*"jobId":"\([^"]*\)".*/\1/p')")
done
streams=()
for id in "${job_ids[@]:0:20}"; do
    curl -sN --max-time 120 -o /dev/null "$BASE/research/stream/$id" &
    streams+=($!)
done

curl -sf -o /dev/null -X POST "$BASE/notifications/channels/training/subscribers" -H 'Content-Type: application/json' \
    -d "{\"subscriberIds\": [$(seq -f '"s%g"' -s, 1 1000)]}" || fail "adding subscribers was refused"
fan_out=$(curl -sf -X POST "$BASE/notifications/channels/training/fan-out" -H 'Content-Type: application/json' \
    -d '{"message": "training", "chunkSize": 50}' | sed -n 's/.*"jobId":"\([^"]*\)".*/\1/p')
[ -n "$fan_out" ] || fail "the fan-out was refused"

for id in "${job_ids[@]}"; do
    for _ in $(seq 1 600); do
        state=$(curl -sf "$BASE/research/status/$id" | sed -n 's/.*"state":"\([^"]*\)".*/\1/p')
        [ "$state" = completed ] && break
        [ "$state" = failed ] && fail "research job $id failed"
        sleep 0.2
    done
    [ "$state" = completed ] || fail "research job $id did not complete within two minutes"
    curl -sf -o /dev/null "$BASE/research/history/$id"
    curl -sf -o /dev/null "$BASE/research/valid-history/$id"
done
for _ in $(seq 1 600); do
    curl -sf "$BASE/notifications/jobs/$fan_out" | grep -q '"state":"completed"' && break
    sleep 0.2
done
curl -sf -o /dev/null "$BASE/q/metrics"
curl -sf -o /dev/null "$BASE/q/health"
wait "${streams[@]}" || true # each stream ends after its job's terminal event

# SIGTERM: the application shuts down gracefully, then the JVM assembles the cache (a child JVM, some seconds).
kill -TERM "$app_pid"
wait "$app_pid" || true
app_pid=""
[ -s "$AOT_CACHE" ] || fail "the JVM wrote no AOT cache to $AOT_CACHE"
echo "aot-training: wrote $AOT_CACHE ($(wc -c <"$AOT_CACHE") bytes) after $JOBS research jobs and a fan-out"

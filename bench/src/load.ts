/**
 * The load generator of `pnpm bench`, run in its own process so that it never shares an event loop
 * with a measured server. It reads one JSON argument (`LoadSpec`) and prints one JSON line
 * (`LoadResult`). Each request takes the next of `keys` in turn, so the per-account rate limit of
 * the plans (100 requests per second on business) is met by spreading the load over accounts, as
 * many clients would, instead of being switched off.
 *
 * - `throughput`: autocannon with `connections` for `seconds`: requests per second, p50 and p99.
 * - `latency`: one connection, one request at a time, `requests` times after a warm-up, each timed
 *   with `process.hrtime` (autocannon rounds to whole milliseconds): p50 and p99 to a microsecond;
 *   `minIntervalMs` apart, or back to back in bursts of `burst` at that rate on average.
 */
import { Agent, request as httpRequest } from "node:http"
import autocannon from "autocannon"

export interface LoadSpec {
  readonly mode: "throughput" | "latency"
  readonly url: string
  readonly method: "GET" | "POST"
  readonly body?: string
  readonly keys: ReadonlyArray<string>
  readonly connections: number
  readonly seconds: number
  readonly requests: number
  /** `latency` only: the least time from one request's start to the next's (keeps under a rate limit). */
  readonly minIntervalMs?: number
  /**
   * `latency` only: send this many requests back to back, then pause so that the burst as a whole
   * kept `minIntervalMs` a request (one connection busy, as autocannon's, within a rate limit).
   */
  readonly burst?: number
}

export interface LoadResult {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly requests: number
  readonly failed: number
}

const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec

let turn = 0
const nextKey = (): string => {
  const key = spec.keys[turn % spec.keys.length] ?? ""
  turn += 1
  return key
}

const throughput = (): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: spec.seconds,
        requests: [
          {
            method: spec.method,
            ...(spec.body === undefined ? {} : { body: spec.body }),
            setupRequest: (request) => ({
              ...request,
              headers: {
                ...request.headers,
                "content-type": "application/json",
                authorization: `Bearer ${nextKey()}`
              }
            })
          }
        ]
      },
      (error, result) => {
        if (error !== null && error !== undefined) return reject(error)
        resolve({
          requestsPerSecond: result.requests.average,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          requests: result.requests.total,
          failed: result.non2xx + result.errors + result.timeouts
        })
      }
    )
  })

const agent = new Agent({ keepAlive: true, maxSockets: 1 })

const once = (): Promise<{ ms: number; ok: boolean }> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const req = httpRequest(
      spec.url,
      {
        method: spec.method,
        agent,
        headers: { "content-type": "application/json", authorization: `Bearer ${nextKey()}` }
      },
      (response) => {
        response.on("data", () => {})
        response.on("end", () =>
          resolve({
            ms: Number(process.hrtime.bigint() - started) / 1e6,
            ok: (response.statusCode ?? 0) < 300
          })
        )
      }
    )
    req.on("error", reject)
    req.end(spec.body)
  })

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One request, then a pause that keeps `minIntervalMs` between request starts. */
const paced = async () => {
  const answer = await once()
  const rest = (spec.minIntervalMs ?? 0) - answer.ms
  if (rest > 0) await pause(rest)
  return answer
}

/** Requests in bursts of `spec.burst` back to back, each burst as long as its requests' intervals. */
const bursts = (burst: number) => {
  let burstStart = 0
  let sent = 0
  return async () => {
    if (sent === 0) burstStart = performance.now()
    const answer = await once()
    sent += 1
    if (sent === burst) {
      sent = 0
      const rest = burst * (spec.minIntervalMs ?? 0) - (performance.now() - burstStart)
      if (rest > 0) await pause(rest)
    }
    return answer
  }
}

const latency = async (): Promise<LoadResult> => {
  const next = spec.burst === undefined ? paced : bursts(spec.burst)
  for (let i = 0; i < Math.min(100, spec.requests); i++) await next()
  const times: Array<number> = []
  let failed = 0
  const started = process.hrtime.bigint()
  for (let i = 0; i < spec.requests; i++) {
    const { ms, ok } = await next()
    times.push(ms)
    if (!ok) failed += 1
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  times.sort((a, b) => a - b)
  const round = (ms: number) => Math.round(ms * 1000) / 1000
  return {
    requestsPerSecond: spec.requests / seconds,
    p50Ms: round(percentile(times, 50)),
    p99Ms: round(percentile(times, 99)),
    requests: spec.requests,
    failed
  }
}

const result = await (spec.mode === "latency" ? latency() : throughput())
agent.destroy()
process.stdout.write(`${JSON.stringify(result)}\n`)

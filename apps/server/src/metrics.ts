/**
 * The server's metrics beside the per-request ones of `@verbatim/api` (all on `metricsRegistry`,
 * served at `GET /metrics`):
 *
 * - node's process metrics (CPU, memory, event loop lag, handles: prom-client's defaults);
 * - `verbatim_queue_jobs{lane,state}`: the work queue's depth per lane (waiting, delayed, active),
 *   read when scraped;
 * - `verbatim_ledger_credits{kind}`: credits charged, refunded and granted over the ledger's life,
 *   for every account and process (read from the database when scraped, at most every 15 s; the same
 *   on every server, so aggregate it with `max`, not `sum`).
 *
 * A read that fails or takes over 2 s leaves the last value: a scrape never waits on a database that
 * is down (`/health` says that).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { metricsRegistry } from "@verbatim/api"
import { batchItemLane, themesLane, WorkQueue, webhookLane } from "@verbatim/core"
import { Duration, Effect, Layer, Runtime } from "effect"
import { collectDefaultMetrics, Gauge } from "prom-client"

const readTimeout = Duration.seconds(2)
const ledgerEveryMs = 15_000

/**
 * The lanes whose depth is reported: every lane a production worker consumes (speech recognition,
 * batch items, theme detections, webhook deliveries); the test wiring's `test.delay` is not one.
 */
export const reportedLanes: ReadonlyArray<string> = ["asr", batchItemLane, themesLane, webhookLane]

const replace = (name: string) => {
  if (metricsRegistry.getSingleMetric(name) !== undefined) metricsRegistry.removeSingleMetric(name)
}

/**
 * How often the event-loop lag (`nodejs_eventloop_lag_*`) is sampled, in milliseconds. prom-client's
 * default, 10 ms, is a timer that wakes an idle server 100 times a second (about 7 ms of CPU a
 * second on the shared machine, against under 3 ms at 100); a block of the loop shorter than the
 * period between samples can go unseen, which a lag worth alerting on is not.
 */
export const eventLoopSamplingMs = 100

/** Registers the server's metrics for the life of the scope. */
export const ServerMetricsLive: Layer.Layer<never, never, WorkQueue | SqlClient.SqlClient> =
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const runtime = yield* Effect.runtime<WorkQueue | SqlClient.SqlClient>()
      const run = <A>(effect: Effect.Effect<A, unknown, WorkQueue | SqlClient.SqlClient>) =>
        Runtime.runPromise(runtime)(
          effect.pipe(Effect.disconnect, Effect.timeout(readTimeout), Effect.option)
        )
      const queue = yield* WorkQueue
      const sql = yield* SqlClient.SqlClient

      if (metricsRegistry.getSingleMetric("process_cpu_user_seconds_total") === undefined) {
        collectDefaultMetrics({
          register: metricsRegistry,
          eventLoopMonitoringPrecision: eventLoopSamplingMs
        })
      }

      replace("verbatim_queue_jobs")
      new Gauge({
        name: "verbatim_queue_jobs",
        help: "Items of the work queue by lane and state (waiting, delayed, active), read when scraped",
        labelNames: ["lane", "state"] as const,
        registers: [metricsRegistry],
        async collect() {
          const depths = await run(
            Effect.forEach(
              reportedLanes,
              (lane) => Effect.map(queue.depth(lane), (depth) => [lane, depth] as const),
              {
                concurrency: "unbounded"
              }
            )
          )
          if (depths._tag === "None") return
          for (const [lane, depth] of depths.value) {
            this.set({ lane, state: "waiting" }, depth.waiting)
            this.set({ lane, state: "delayed" }, depth.delayed)
            this.set({ lane, state: "active" }, depth.active)
          }
        }
      })

      let ledgerReadAt = 0
      replace("verbatim_ledger_credits")
      new Gauge({
        name: "verbatim_ledger_credits",
        help: "Credits posted over the ledger's life by kind (charge, refund, grant), all accounts and processes; read from the database at most every 15 s: aggregate with max",
        labelNames: ["kind"] as const,
        registers: [metricsRegistry],
        async collect() {
          if (Date.now() - ledgerReadAt < ledgerEveryMs) return
          const rows = await run(
            sql<{ readonly kind: string; readonly total: string }>`
            SELECT kind, abs(coalesce(sum(amount), 0))::text AS total FROM ledger_entries GROUP BY kind`
          )
          if (rows._tag === "None") return
          ledgerReadAt = Date.now()
          for (const kind of ["charge", "refund", "grant"]) {
            this.set({ kind }, Number(rows.value.find((row) => row.kind === kind)?.total ?? 0))
          }
        }
      })

      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          replace("verbatim_queue_jobs")
          replace("verbatim_ledger_credits")
        })
      )
    })
  )

/**
 * The unauthenticated health answers:
 *
 * - `GET /ping`, liveness as the spec describes it: the process answers (200), whatever its
 *   dependencies do. A load balancer that restarts on a failed ping must not restart a server whose
 *   database is down.
 * - `GET /health`, readiness: whether this server can do its work now, `{status, timestamp}` only:
 *   200 `ready` when the database and the queue answer, else 503 `unavailable` with `Retry-After`,
 *   so a load balancer sends traffic elsewhere until they are back.
 * - `GET /health/details` (beside `/metrics`, for the operator's private network): the same checks
 *   with each dependency's state, the queue's depth, the speech engine (reported, never a reason to
 *   be unready: without one, speech requests answer 503 `asr_unavailable` and everything else works)
 *   and the video platform's last outcome (ok, blocked, unreachable, or none yet, `PlatformHealth`).
 *
 * The probes are the `Readiness` service; `ReadinessFromPorts` builds it from core's ports (a read of
 * the accounts table, a depth read of the queue, the engine's name), each bounded in time.
 */
import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { HealthDetails, VerbatimApi } from "@verbatim/contract"
import {
  Accounts,
  PlatformHealth,
  SpeechToText,
  unavailableRetryAfterSeconds,
  WorkQueue
} from "@verbatim/core"
import { Api, Ids } from "@verbatim/domain"
import { Context, DateTime, Duration, Effect, Layer, Option, Schema } from "effect"

export type ReadinessReport = typeof HealthDetails.Type

/** Runs the readiness checks. */
export class Readiness extends Context.Tag("@verbatim/api/Readiness")<
  Readiness,
  { readonly check: Effect.Effect<ReadinessReport> }
>() {}

/** How long one probe may take before it counts as down. */
export const probeTimeout = Duration.seconds(2)

const messageOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    if ("unavailable" in error && error.unavailable === true) return "unreachable or not answering"
    if ("message" in error && typeof error.message === "string" && error.message !== "") return error.message
    if ("_tag" in error && typeof error._tag === "string") return error._tag
  }
  return String(error)
}

/**
 * Bounded: a probe that does not finish in `probeTimeout` is down. The probe is left to finish in
 * the background (`disconnect`), so a hung database cannot hold the answer.
 */
const bounded = <A, E>(probe: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const start = Date.now()
    const result = yield* Effect.disconnect(probe).pipe(
      Effect.timeoutFail({
        duration: probeTimeout,
        onTimeout: () => `no answer within ${Duration.format(probeTimeout)}`
      }),
      Effect.either
    )
    return { result, ms: Date.now() - start }
  })

/** An id no account has: reading it is one indexed lookup that touches no row. */
const probeAccount = Ids.AccountId.make("00000000-0000-0000-0000-000000000000")

/**
 * Readiness over core's ports: the accounts table, the queue's speech recognition lane, the engine,
 * and the video platform's last outcome (read, never probed: asking YouTube on every health check
 * would spend the server's standing with it).
 */
export const ReadinessFromPorts: Layer.Layer<
  Readiness,
  never,
  Accounts | WorkQueue | SpeechToText | PlatformHealth
> = Layer.effect(
  Readiness,
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const queue = yield* WorkQueue
    const speech = yield* SpeechToText
    const platform = yield* PlatformHealth
    return Readiness.of({
      check: Effect.gen(function* () {
        const [database, lane] = yield* Effect.all(
          [bounded(accounts.get(probeAccount)), bounded(queue.depth("asr"))],
          {
            concurrency: 2
          }
        )
        const checkedAt = yield* DateTime.now
        const last = yield* platform.last
        const databaseUp = database.result._tag === "Right"
        const queueUp = lane.result._tag === "Right"
        const depth = lane.result._tag === "Right" ? lane.result.right : { waiting: 0, active: 0 }
        const fields = {
          checked_at: checkedAt,
          database: {
            status: databaseUp ? ("up" as const) : ("down" as const),
            latency_ms: database.ms,
            ...(database.result._tag === "Left" ? { error: messageOf(database.result.left) } : {})
          },
          queue: {
            status: queueUp ? ("up" as const) : ("down" as const),
            waiting: depth.waiting,
            active: depth.active,
            ...(lane.result._tag === "Left" ? { error: messageOf(lane.result.left) } : {})
          },
          speech: {
            status: speech.engine === "none" ? ("off" as const) : ("up" as const),
            engine: speech.engine
          },
          video_platform: Option.match(last, {
            onNone: () => ({ status: "none" as const }),
            onSome: (report) => ({
              status: report.outcome,
              at: report.at,
              ...(report.reason === null ? {} : { reason: report.reason })
            })
          })
        }
        return databaseUp && queueUp
          ? { status: "ready" as const, ...fields }
          : { status: "unavailable" as const, ...fields }
      })
    })
  })
)

const retryLater = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(unavailableRetryAfterSeconds)))
)

export const HealthHttp = HttpApiBuilder.group(VerbatimApi, "health", (handlers) =>
  handlers
    .handle("ping", () =>
      Effect.map(DateTime.now, (timestamp) => new Api.HealthResponse({ status: "ok", timestamp }))
    )
    .handle("health", () =>
      Effect.flatMap(Readiness, (readiness) =>
        Effect.flatMap(
          readiness.check,
          (report): Effect.Effect<{ status: "ready" | "unavailable"; timestamp: DateTime.Utc }> =>
            report.status === "ready"
              ? Effect.succeed({ status: "ready", timestamp: report.checked_at })
              : Effect.as(retryLater, { status: "unavailable", timestamp: report.checked_at })
        )
      )
    )
)

/** Where the operator's report is served: beside `/metrics`, outside the API's paths. */
export const healthDetailsPath = "/health/details" as const

const encodeDetails = Schema.encode(HealthDetails)

/**
 * `GET /health/details`: the readiness checks with their detail (no key; the deployment's load
 * balancer serves it on its internal listener only, as `/metrics`): 200 or 503 with `Retry-After`,
 * as `/api/v2/health`.
 */
export const HealthDetailsRoute: Layer.Layer<never, never, Readiness> = HttpApiBuilder.Router.use((router) =>
  Effect.flatMap(Readiness, (readiness) =>
    router.get(
      healthDetailsPath,
      Effect.flatMap(readiness.check, (report) =>
        Effect.map(Effect.orDie(encodeDetails(report)), (body) =>
          HttpServerResponse.unsafeJson(body, {
            status: report.status === "ready" ? 200 : 503,
            ...(report.status === "ready"
              ? {}
              : { headers: { "retry-after": String(unavailableRetryAfterSeconds) } })
          })
        )
      )
    )
  )
) as Layer.Layer<never, never, Readiness>

/**
 * The two unauthenticated health answers:
 *
 * - `GET /ping`, liveness as the spec describes it: the process answers (200), whatever its
 *   dependencies do. A load balancer that restarts on a failed ping must not restart a server whose
 *   database is down.
 * - `GET /health`, readiness: whether this server can do its work now, as the spec's health response
 *   `{status, timestamp}`: 200 `ready` when the database and the work queue answer, else 503
 *   `unavailable` with `Retry-After`, so a load balancer sends traffic elsewhere until they are back.
 *   It says nothing more to the public: which dependency is down, the queue's depth and the engines
 *   are the operator's (`HealthDetails`, served at `/health/details` beside `/metrics`, on the
 *   internal listener of the deployment's load balancer).
 *
 * The probes are the `Readiness` service of `@verbatim/api`, built from core's ports (a read of the
 * accounts table, a depth read of the queue, the engine's name), each bounded in time.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Api } from "@verbatim/domain"
import { Schema } from "effect"
import { basePath } from "../base.js"
import { InternalError } from "../errors.js"

const Milliseconds = Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "Milliseconds" })

const DatabaseState = Schema.Struct({
  status: Schema.Literal("up", "down").annotations({ description: "up: the database answered a read" }),
  latency_ms: Milliseconds.annotations({
    description: "How long the read took (or how long it was waited for)"
  }),
  error: Schema.optional(Schema.String).annotations({ description: "Why it is down" })
}).annotations({
  identifier: "DatabaseState",
  description: "The database (PostgreSQL or the embedded PGlite)"
})

const QueueState = Schema.Struct({
  status: Schema.Literal("up", "down").annotations({ description: "up: the work queue answered" }),
  waiting: Schema.Int.pipe(Schema.nonNegative()).annotations({
    description: "Speech recognition jobs waiting for a worker"
  }),
  active: Schema.Int.pipe(Schema.nonNegative()).annotations({
    description: "Speech recognition jobs a worker is running"
  }),
  error: Schema.optional(Schema.String).annotations({ description: "Why it is down" })
}).annotations({ identifier: "QueueState", description: "The work queue (in memory, or Redis)" })

const SpeechState = Schema.Struct({
  status: Schema.Literal("up", "off").annotations({
    description: "off: no speech recognition engine, so speech requests answer 503 asr_unavailable"
  }),
  engine: Schema.String.annotations({ description: "The engine: assemblyai, pocketsphinx, or none" })
}).annotations({ identifier: "SpeechState", description: "The speech recognition engine" })

const VideoPlatformState = Schema.Struct({
  status: Schema.Literal("ok", "blocked", "unreachable", "none").annotations({
    description:
      "The video platform's last outcome in this process: ok (it answered), blocked (it refused this " +
      "server: bot check, IP block, rate limit...), unreachable (no answer after every retry), none " +
      "(not asked yet)"
  }),
  at: Schema.optional(Schema.DateTimeUtc).annotations({ description: "When that outcome happened" }),
  reason: Schema.optional(Schema.String).annotations({ description: "Why it was blocked or unreachable" })
}).annotations({
  identifier: "VideoPlatformState",
  description: "The video platform (YouTube or the demo catalogue): information, never a reason to be unready"
})

const reportFields = {
  /** When the checks ran. */
  checked_at: Schema.DateTimeUtc,
  database: DatabaseState,
  queue: QueueState,
  speech: SpeechState,
  video_platform: VideoPlatformState
}

/**
 * The operator's readiness report (`GET /health/details`, not part of the API: no key, keep it on a
 * private network): each dependency's state, the speech engine, the video platform's last outcome.
 * The speech engine and the video platform are reported, never a reason to be unready.
 */
export const HealthDetails = Schema.Struct({
  status: Schema.Literal("ready", "unavailable"),
  ...reportFields
}).annotations({ identifier: "HealthDetails" })

/** 200: the database and the queue answer. */
export const ReadyResponse = Schema.Struct({
  status: Schema.Literal("ready"),
  timestamp: Schema.DateTimeUtc.annotations({ description: "When the checks ran" })
}).annotations({ identifier: "ReadyResponse", description: "The server can take requests" })

/** 503: the database or the queue does not answer. */
export const NotReadyResponse = Schema.Struct({
  status: Schema.Literal("unavailable"),
  timestamp: Schema.DateTimeUtc.annotations({ description: "When the checks ran" })
}).annotations(
  HttpApiSchema.annotations({
    status: 503,
    identifier: "NotReadyResponse",
    description: "The database or the work queue does not answer: send requests elsewhere and retry later"
  })
)

export class HealthGroup extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("ping", "/ping")
      .addSuccess(Api.HealthResponse)
      .annotate(OpenApi.Summary, "Liveness check (no authentication)")
      .annotate(
        OpenApi.Description,
        "Answers 200 while the process runs, whatever its database does; use GET /health for readiness."
      )
  )
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(ReadyResponse)
      .addSuccess(NotReadyResponse, { status: 503 })
      .annotate(OpenApi.Summary, "Readiness check (no authentication)")
      .annotate(
        OpenApi.Description,
        "Whether this server can take requests now: 200 ready when its database and work queue answer, " +
          "503 unavailable with Retry-After when either does not (each is given 2 seconds)."
      )
  )
  .addError(InternalError)
  .annotate(OpenApi.Description, "Whether the service is up and ready")
  .prefix(basePath) {}

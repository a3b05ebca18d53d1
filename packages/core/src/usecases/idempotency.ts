/**
 * Idempotent requests (`Idempotency-Key` on POST /transcribe, POST /batch and the resolves): a retry with the same
 * key and request returns the first answer and charges nothing again; the same key with another
 * request is 409 `conflict`; keys are kept 24 hours; a retry that arrives while the first request
 * still runs waits for its answer instead of running twice.
 *
 * The first answer is kept whether it succeeded or was refused (a 4xx is an answer too); a server
 * failure (5xx, or the store failing) frees the key, so the retry runs. Every entry point (HTTP,
 * MCP) runs its idempotent use cases through `Idempotency.run`. Entries past their 24 hours are only
 * ever replaced: the worker removes them on its reconcile rhythm (`sweepExpiredIdempotencyKeys`).
 */
import { Api, Errors, type Ids } from "@verbatim/domain"
import { DateTime, Duration, Effect, Either, Exit, type Layer, Option, Schedule, Schema } from "effect"
import type { LazyArg } from "effect/Function"
import type { PersistenceError } from "../errors.js"
import type { Account } from "../ports/accounts.js"
import { IdempotencyKeys } from "../ports/idempotency.js"
import { fieldError } from "./failures.js"

/** How long a key's answer is kept. */
export const idempotencyTtl = Duration.hours(24)
/** How long a retry waits for the first request's answer before it gives up (409). */
export const idempotencyWait = Duration.seconds(60)
export const maxIdempotencyKeyLength = 255

/**
 * A key as every entry point takes it (the REST `Idempotency-Key`, the MCP tools' `idempotency_key`):
 * 1 to `maxIdempotencyKeyLength` visible ASCII characters.
 */
export const IdempotencyKey = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(maxIdempotencyKeyLength),
  Schema.pattern(/^[\x21-\x7e]+$/)
)

const isIdempotencyKey = Schema.is(IdempotencyKey)

/**
 * The endpoint names keys are kept under, shared by every entry point (the REST handlers and the
 * MCP tools): a key sent to one endpoint over REST and again by the MCP tool of that endpoint with
 * the same request answers the first answer.
 */
export const idempotentEndpoints = {
  transcribe: "transcribe",
  batch: "batch",
  playlistResolve: "playlists.resolve",
  channelResolve: "channels.resolve"
} as const

/** Removes up to `limit` entries past their expiry (kept 24 hours, never fewer); how many. */
export const sweepExpiredIdempotencyKeys = (limit: number) =>
  Effect.flatMap(IdempotencyKeys, (keys) =>
    Effect.flatMap(DateTime.now, (now) => keys.sweepExpired(now, limit))
  )

const KeptAnswer = Schema.Union(
  Schema.TaggedStruct("answer", { body: Schema.Unknown }),
  Schema.TaggedStruct("refused", {
    code: Errors.ErrorCode,
    message: Schema.String,
    details: Api.FreeFormObject
  })
)

/** A request's canonical JSON: object keys sorted, so key order never makes two requests differ. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )

export class Idempotency extends Effect.Service<Idempotency>()("@verbatim/core/Idempotency", {
  effect: Effect.gen(function* () {
    const keys = yield* IdempotencyKeys

    /**
     * Runs `work` once per (account, endpoint, key): the answer is encoded with `schema` and kept; a
     * later call with the same key and request returns it decoded. Without a key, `work` just runs:
     * the request (as its entry point encodes it) is only made when a key asks for it.
     */
    const run = <A, I>(
      account: Account,
      endpoint: string,
      key: string | undefined,
      request: LazyArg<unknown>,
      schema: Schema.Schema<A, I>,
      work: Effect.Effect<A, Errors.ApiError | PersistenceError>
    ): Effect.Effect<A, Errors.ApiError | PersistenceError> =>
      key === undefined ? work : keyed(account, endpoint, key, request, schema, work)

    const keyed = <A, I>(
      account: Account,
      endpoint: string,
      key: string,
      request: LazyArg<unknown>,
      schema: Schema.Schema<A, I>,
      work: Effect.Effect<A, Errors.ApiError | PersistenceError>
    ): Effect.Effect<A, Errors.ApiError | PersistenceError> =>
      Effect.gen(function* () {
        if (!isIdempotencyKey(key)) {
          return yield* Effect.fail(
            fieldError(
              ["Idempotency-Key"],
              `must be 1 to ${maxIdempotencyKeyLength} visible ASCII characters (a UUID is a good key)`
            )
          )
        }
        const canonical = canonicalJson(request())
        const now = yield* DateTime.now
        const claim = {
          accountId: account.id as Ids.AccountId,
          endpoint,
          key,
          request: canonical,
          now,
          expiresAt: DateTime.addDuration(now, idempotencyTtl)
        }
        const existing = yield* keys.begin(claim)
        if (Option.isNone(existing)) {
          // A first request interrupted (its client gone, a shutdown) or dead frees the key, as a
          // server failure does: its retries run instead of waiting for an answer that never comes.
          const outcome = yield* Effect.either(work).pipe(
            Effect.onExit((exit) =>
              Exit.isSuccess(exit) ? Effect.void : Effect.ignore(keys.abandon(claim.accountId, endpoint, key))
            )
          )
          if (Either.isRight(outcome)) {
            const body = yield* Effect.orDie(Schema.encode(schema)(outcome.right))
            yield* keys.complete(claim.accountId, endpoint, key, { _tag: "answer", body })
            return outcome.right
          }
          const error = outcome.left
          if (error._tag === "ApiError" && error.status < 500) {
            yield* keys.complete(claim.accountId, endpoint, key, {
              _tag: "refused",
              code: error.code,
              message: error.message,
              details: error.details
            })
          } else {
            yield* keys.abandon(claim.accountId, endpoint, key)
          }
          return yield* Effect.fail(error)
        }
        if (existing.value.request !== canonical) {
          return yield* Effect.fail(
            Errors.apiError(
              "conflict",
              `Idempotency-Key ${key} was used with another request in the last 24 hours; use a new key`,
              { idempotency_key: key }
            )
          )
        }
        // The first request may still run: wait for its answer.
        const kept = yield* Option.match(existing.value.response, {
          onSome: (response) => Effect.succeed(Option.some(response)),
          onNone: () =>
            keys.get(claim.accountId, endpoint, key).pipe(
              Effect.flatMap((entry) =>
                Option.isNone(entry)
                  ? Effect.succeed(Option.none<unknown>())
                  : Option.isSome(entry.value.response)
                    ? Effect.succeed(Option.some(entry.value.response.value))
                    : Effect.fail("running" as const)
              ),
              Effect.retry({ schedule: Schedule.spaced(Duration.millis(100)) }),
              Effect.timeoutFail({ duration: idempotencyWait, onTimeout: () => "running" as const }),
              Effect.catchIf(
                (error): error is "running" => error === "running",
                () =>
                  Effect.fail(
                    Errors.apiError(
                      "conflict",
                      `the request with Idempotency-Key ${key} is still running; retry later`,
                      { idempotency_key: key }
                    )
                  )
              )
            )
        })
        // The first request failed on our side and freed the key: this one runs.
        if (Option.isNone(kept)) return yield* keyed(account, endpoint, key, request, schema, work)
        const answer = yield* Effect.orDie(Schema.decodeUnknown(KeptAnswer)(kept.value))
        if (answer._tag === "refused") {
          return yield* Effect.fail(
            new Errors.ApiError({ code: answer.code, message: answer.message, details: answer.details })
          )
        }
        return yield* Effect.orDie(Schema.decodeUnknown(schema)(answer.body))
      }).pipe(
        Effect.withSpan("verbatim.idempotency.run", { attributes: { endpoint }, captureStackTrace: false })
      )

    return { run }
  })
}) {}

export const IdempotencyLive: Layer.Layer<Idempotency, never, IdempotencyKeys> = Idempotency.Default

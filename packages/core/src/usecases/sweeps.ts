/**
 * The sweeps, each a feature of its own in the registry of background work (`BackgroundWork`): no
 * lane, only a reconciler run on every process's reconcile rhythm, which logs its own failures.
 *
 * - credit holds: releases the holds whose work is gone (a job finished or removed without closing
 *   its hold, a request's hold expired; `credit-holds.ts`);
 * - uploads: deletes the files of expired and transcribed uploads (when `MediaUploads` is provided);
 * - idempotency keys, OAuth and web sessions: removes the rows only ever refused once expired (or,
 *   for web sessions, once their key is revoked), at most `expiredSweepLimit` of each a round (when
 *   their stores are provided).
 *
 * `sweepsBackground` gives the ones this process's services allow; `@verbatim/runtime`'s wiring
 * registers them beside the worker's, the batches' and the themes' features.
 */
import { Effect, Option } from "effect"
import { IdempotencyKeys } from "../ports/idempotency.js"
import { Ledger } from "../ports/ledger.js"
import { OAuthStore } from "../ports/oauth.js"
import { WebSessionStore } from "../ports/web-sessions.js"
import { releaseStaleHolds } from "./credit-holds.js"
import { sweepExpiredIdempotencyKeys } from "./idempotency.js"
import type { BackgroundFeature } from "./lanes.js"
import { sweepExpiredOAuth } from "./oauth.js"
import { MediaUploads } from "./tags.js"
import { sweepWebSessions } from "./web-sessions.js"

/** Rows only ever refused once expired, removed a round at most per kind. */
export const expiredSweepLimit = 500

/** A feature that only sweeps: `sweep` every round, a failure logged and tried again next round. */
const sweeping = <A, E>(name: string, sweep: Effect.Effect<A, E>): BackgroundFeature => ({
  name,
  lanes: [],
  reconcile: sweep.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning(`sweeping ${name} failed; trying again`, cause))
  )
})

/** The sweeps this process's services allow, each a feature of the registry. */
export const sweepsBackground: Effect.Effect<ReadonlyArray<BackgroundFeature>, never, Ledger> = Effect.gen(
  function* () {
    const ledger = yield* Ledger
    const uploads = yield* Effect.serviceOption(MediaUploads)
    const idempotencyKeys = yield* Effect.serviceOption(IdempotencyKeys)
    const oauth = yield* Effect.serviceOption(OAuthStore)
    const webSessions = yield* Effect.serviceOption(WebSessionStore)
    return [
      sweeping("stale credit holds", Effect.provideService(releaseStaleHolds, Ledger, ledger)),
      ...Option.match(uploads, {
        onNone: () => [],
        onSome: (service) => [sweeping("uploads", service.sweep)]
      }),
      ...Option.match(idempotencyKeys, {
        onNone: () => [],
        onSome: (store) => [
          sweeping(
            "expired idempotency keys",
            Effect.provideService(sweepExpiredIdempotencyKeys(expiredSweepLimit), IdempotencyKeys, store)
          )
        ]
      }),
      ...Option.match(oauth, {
        onNone: () => [],
        onSome: (store) => [
          sweeping(
            "expired OAuth codes and tokens",
            Effect.provideService(sweepExpiredOAuth(expiredSweepLimit), OAuthStore, store)
          )
        ]
      }),
      ...Option.match(webSessions, {
        onNone: () => [],
        onSome: (store) => [
          sweeping(
            "ended web sessions",
            Effect.provideService(sweepWebSessions(expiredSweepLimit), WebSessionStore, store)
          )
        ]
      })
    ]
  }
)

/** Runs the reconciler of every registered feature once, in order (tests, and a manual round). */
export const reconcileOnce = (features: ReadonlyArray<BackgroundFeature>): Effect.Effect<void> =>
  Effect.forEach(features, (feature) => feature.reconcile, { discard: true })

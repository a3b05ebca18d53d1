/**
 * News that accounts or API keys changed (a key revoked or deleted, a plan or an account's settings
 * changed, an account deleted), from every process sharing the database. `Access` keeps the
 * accounts of recent keys for a few seconds and serves one only while nothing may have changed
 * since it was read: "a key revoked is refused at once".
 */
import { Context, Effect, Layer, Option } from "effect"

export class AccountChanges extends Context.Tag("@verbatim/core/AccountChanges")<
  AccountChanges,
  {
    /**
     * A number that moves whenever an account or key may have changed, or none while changes could
     * go unnoticed (not listening yet, or the listening connection is lost: what changed meanwhile
     * was missed, so the number moves again once listening resumes). It moves as soon as the change
     * is known, before anything that follows it is handled; reading it does no I/O.
     */
    readonly version: Effect.Effect<Option.Option<number>>
    /**
     * Reports a change this process just made (after it committed), so that the version moves here
     * at once; other processes hear it from the database.
     */
    readonly changed: Effect.Effect<void>
  }
>() {}

/** No news of changes: nothing read from the accounts is ever kept between requests. */
export const NoAccountChanges: Layer.Layer<AccountChanges> = Layer.succeed(
  AccountChanges,
  AccountChanges.of({ version: Effect.succeed(Option.none()), changed: Effect.void })
)

/**
 * From a bearer key to its account, and the account's share of the rate limit.
 *
 * The account of a key found is kept for `keyCacheTtl`, and served again only while
 * `AccountChanges` reports the version it was read at: any change to a key or an account (in any
 * process) moves the version, and while changes could go unnoticed there is no version, so nothing
 * is served from memory. A key revoked is refused at once. Unknown keys are never kept, and kept
 * accounts hold no balance (`Account`), so credit checks always read the ledger.
 */
import { Errors, Plan } from "@verbatim/domain"
import { Clock, Duration, Effect, Layer, Option } from "effect"
import { AccountChanges } from "../ports/account-changes.js"
import { type Account, Accounts } from "../ports/accounts.js"
import { RateLimiter } from "../ports/rate-limiter.js"
import { looksLikeApiKey, Secrets } from "../ports/secrets.js"
import { Access } from "./tags.js"

/** How long the account of a key is kept at most (also while changes are heard). */
export const keyCacheTtl = Duration.seconds(10)
/** How many keys are kept at most; past it the cache starts again empty. */
export const keyCacheCapacity = 10_000

interface Kept {
  readonly account: Account
  /** The `AccountChanges` version when it was read. */
  readonly version: number
  readonly until: number
}

const invalidKey = (why: string) => Errors.apiError("invalid_api_key", `Missing or invalid API key: ${why}`)

export const AccessLive = Layer.effect(
  Access,
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const secrets = yield* Secrets
    const limiter = yield* RateLimiter
    const changes = yield* AccountChanges
    const ttlMillis = Duration.toMillis(keyCacheTtl)
    const kept = new Map<string, Kept>()

    const accountOf = (hash: string) =>
      Effect.gen(function* () {
        // The version is read before the lookup: a change during it leaves the entry unserved.
        const version = yield* changes.version
        const now = yield* Clock.currentTimeMillis
        if (Option.isNone(version)) return yield* accounts.findByKeyHash(hash)
        const hit = kept.get(hash)
        if (hit !== undefined) {
          if (hit.version === version.value && hit.until > now) return Option.some(hit.account)
          kept.delete(hash)
        }
        const found = yield* accounts.findByKeyHash(hash)
        if (Option.isSome(found)) {
          if (kept.size >= keyCacheCapacity) kept.clear()
          kept.set(hash, { account: found.value, version: version.value, until: now + ttlMillis })
        }
        return found
      })

    return Access.of({
      authenticate: (bearer) =>
        Effect.gen(function* () {
          const key = bearer?.trim() ?? ""
          if (key.length === 0) return yield* invalidKey("send Authorization: Bearer <API key>")
          if (!looksLikeApiKey(key)) return yield* invalidKey("the key is malformed")
          const account = yield* accountOf(yield* secrets.hashApiKey(key))
          return yield* Option.match(account, {
            onNone: () => invalidKey("the key is unknown or revoked"),
            onSome: Effect.succeed
          })
        }),
      takeRequest: (account, requests = 1) =>
        limiter.take(`account:${account.id}`, Plan.limitsFor(account.plan), requests)
    })
  })
)

/** From a bearer key to its account, and the account's share of the rate limit. */
import { Errors, Plan } from "@verbatim/domain"
import { Effect, Layer, Option } from "effect"
import { Accounts } from "../ports/accounts.js"
import { RateLimiter } from "../ports/rate-limiter.js"
import { looksLikeApiKey, Secrets } from "../ports/secrets.js"
import { Access } from "./tags.js"

const invalidKey = (why: string) => Errors.apiError("invalid_api_key", `Missing or invalid API key: ${why}`)

export const AccessLive = Layer.effect(
  Access,
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const secrets = yield* Secrets
    const limiter = yield* RateLimiter
    return Access.of({
      authenticate: (bearer) =>
        Effect.gen(function* () {
          const key = bearer?.trim() ?? ""
          if (key.length === 0) return yield* invalidKey("send Authorization: Bearer <API key>")
          if (!looksLikeApiKey(key)) return yield* invalidKey("the key is malformed")
          const account = yield* accounts.findByKeyHash(yield* secrets.hashApiKey(key))
          return yield* Option.match(account, {
            onNone: () => invalidKey("the key is unknown or revoked"),
            onSome: Effect.succeed
          })
        }),
      takeRequest: (account) => limiter.take(`account:${account.id}`, Plan.limitsFor(account.plan))
    })
  })
)

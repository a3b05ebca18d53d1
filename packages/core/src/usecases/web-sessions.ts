/**
 * Sessions of the web library: the policy every entry point that accepts a session shares (the
 * API's routes, the pages, sign-in and sign-out).
 *
 * - Signing in takes an API key once and gives a random session token (`vbw_` and 256 bits) that the
 *   browser keeps in an HttpOnly cookie; the store keeps only its hash, the key's id and the account.
 *   The key is never kept, written back or logged.
 * - A session follows the key that made it: once the key is revoked (or deleted, or its account) the
 *   session answers 401 `invalid_api_key`, on every server at once (the store reads the key's state
 *   with the session).
 * - A session ends after `webSessionLifetimes.idle` without use, and after
 *   `webSessionLifetimes.absolute` whatever happens; a session in use is extended at most once every
 *   `webSessionLifetimes.extendEvery` (one write, not one a request).
 * - Every request that may change something (any method but GET, HEAD and OPTIONS) must carry the
 *   session's CSRF token, else 403 `forbidden`. The token is derived from the session token
 *   (a one-way hash): a page of the same origin is given it, another site can neither read the
 *   HttpOnly cookie nor compute the token.
 * - Sign-in attempts are limited per client address (`signInLimit`), so a caller without a key
 *   costs almost nothing; keys are 256-bit random, so guessing is hopeless anyway.
 */
import { Errors } from "@verbatim/domain"
import { Context, DateTime, Duration, Effect, Layer, Option } from "effect"
import { admitted } from "../boundary.js"
import type { PersistenceError } from "../errors.js"
import type { Account } from "../ports/accounts.js"
import { RateLimiter } from "../ports/rate-limiter.js"
import { looksLikeApiKey, Secrets } from "../ports/secrets.js"
import { WebSessionStore } from "../ports/web-sessions.js"

/** Every session token starts with this (recognisable in a leak, never taken for an API key). */
export const webSessionPrefix = "vbw_"

export const webSessionLifetimes = {
  /** A session not used for this long ends. */
  idle: Duration.hours(24),
  /** A session ends this long after sign-in, used or not. */
  absolute: Duration.days(7),
  /** A session used is extended (one write) when its end was last moved at least this long ago. */
  extendEvery: Duration.minutes(10)
} as const

/** Sign-in attempts per client address: a burst of 10, then one a second. */
export const signInLimit = { requestsPerSecond: 1, burst: 10 } as const

/** Methods that change nothing: they need no CSRF token. */
const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])

/** Whether a request with this method must carry the session's CSRF token. */
export const needsCsrfToken = (method: string): boolean => !safeMethods.has(method.toUpperCase())

/** The shape of a session token: anything else is refused before any lookup. */
export const looksLikeSessionToken = (value: string): boolean =>
  value.startsWith(webSessionPrefix) && /^[A-Za-z0-9_-]{24,128}$/.test(value)

/** A session as a request or a page sees it: its account, its CSRF token and when it ends. */
export interface WebSession {
  readonly account: Account
  readonly csrfToken: string
  readonly expiresAt: DateTime.Utc
}

/** A sign-in: the session token for the cookie, and the session. */
export interface WebSignIn extends WebSession {
  readonly token: string
}

type Fails<A> = Effect.Effect<A, Errors.ApiError | PersistenceError>

export class WebSessions extends Context.Tag("@verbatim/core/WebSessions")<
  WebSessions,
  {
    /**
     * Signs in with an API key, for a caller at `address`: `invalid_api_key` when the key is not an
     * active one, 429 `rate_limit_exceeded` past `signInLimit`.
     */
    readonly signIn: (apiKey: string, address: string) => Fails<WebSignIn>
    /**
     * The session of a request: its token (from the cookie), its method and the CSRF token it
     * carries. 401 `invalid_api_key` when the session is unknown, expired or its key revoked; 403
     * `forbidden` when the method may change something and the CSRF token is missing or wrong.
     */
    readonly authenticate: (
      token: string,
      request: { readonly method: string; readonly csrfToken: string | undefined }
    ) => Fails<WebSession>
    /** The session of a page (a GET): none when there is no live one. */
    readonly current: (
      token: string | undefined
    ) => Effect.Effect<Option.Option<WebSession>, PersistenceError>
    /**
     * Ends a session; its CSRF token must come with it (403 `forbidden` otherwise), so another
     * site cannot sign a person out. A session already gone is fine.
     */
    readonly signOut: (token: string, csrfToken: string | undefined) => Fails<void>
  }
>() {}

const noSession = (why: string) =>
  Errors.apiError("invalid_api_key", `Missing or invalid session: ${why}; sign in again`)

const badCsrf = Errors.apiError(
  "forbidden",
  "This request changes something and needs the session's CSRF token in the X-CSRF-Token header (the page that sent it may be stale: reload it)"
)

/** Equal strings, compared in time that does not depend on where they differ. */
const sameSecret = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

export const WebSessionsLive = Layer.effect(
  WebSessions,
  Effect.gen(function* () {
    const store = yield* WebSessionStore
    const secrets = yield* Secrets
    const limiter = yield* RateLimiter

    /** The CSRF token of a session: a one-way hash of its token, under a label of its own. */
    const csrfOf = (token: string) => secrets.hashApiKey(`verbatim-web-csrf\u0001${token}`)

    /** The live session of a token, extended when its end was last moved `extendEvery` ago. */
    const live = (token: string): Effect.Effect<Option.Option<WebSession>, PersistenceError> =>
      Effect.gen(function* () {
        if (!looksLikeSessionToken(token)) return Option.none()
        const idHash = yield* secrets.hashApiKey(token)
        const now = yield* DateTime.now
        const found = yield* store.find(idHash, now)
        if (Option.isNone(found)) return Option.none()
        const session = found.value
        const latest = DateTime.min(
          DateTime.addDuration(now, webSessionLifetimes.idle),
          DateTime.addDuration(session.createdAt, webSessionLifetimes.absolute)
        )
        const movedAt = DateTime.subtractDuration(session.expiresAt, webSessionLifetimes.idle)
        const expiresAt =
          DateTime.distance(movedAt, now) >= Duration.toMillis(webSessionLifetimes.extendEvery) &&
          DateTime.greaterThan(latest, session.expiresAt)
            ? yield* Effect.as(store.extend(idHash, latest), latest)
            : session.expiresAt
        return Option.some({ account: session.account, csrfToken: yield* csrfOf(token), expiresAt })
      })

    return WebSessions.of({
      signIn: (apiKey, address) =>
        Effect.gen(function* () {
          yield* Effect.flatMap(limiter.take(`web-sign-in:${address}`, signInLimit), (verdict) =>
            admitted(verdict, 1)
          )
          const key = apiKey.trim()
          if (!looksLikeApiKey(key)) {
            return yield* Errors.apiError("invalid_api_key", "That is not an API key (they start with vbt_)")
          }
          const token = yield* Effect.map(
            secrets.newApiKey,
            (random) => `${webSessionPrefix}${random.slice(random.indexOf("_") + 1)}`
          )
          const createdAt = yield* DateTime.now
          const expiresAt = DateTime.addDuration(createdAt, webSessionLifetimes.idle)
          const saved = yield* store.save({
            idHash: yield* secrets.hashApiKey(token),
            keyHash: yield* secrets.hashApiKey(key),
            createdAt,
            expiresAt
          })
          if (Option.isNone(saved)) {
            return yield* Errors.apiError("invalid_api_key", "That API key is unknown or revoked")
          }
          const session = yield* live(token)
          return yield* Option.match(session, {
            onNone: () => noSession("the session ended as it began"),
            onSome: (value) => Effect.succeed({ ...value, token })
          })
        }).pipe(Effect.withSpan("verbatim.web.signIn")),

      authenticate: (token, request) =>
        Effect.gen(function* () {
          const session = yield* live(token)
          if (Option.isNone(session))
            return yield* noSession("the session is unknown, expired or its key revoked")
          if (
            needsCsrfToken(request.method) &&
            (request.csrfToken === undefined || !sameSecret(request.csrfToken, session.value.csrfToken))
          ) {
            return yield* badCsrf
          }
          return session.value
        }),

      current: (token) => (token === undefined ? Effect.succeed(Option.none()) : live(token)),

      signOut: (token, csrfToken) =>
        Effect.gen(function* () {
          if (!looksLikeSessionToken(token)) return
          const expected = yield* csrfOf(token)
          if (csrfToken === undefined || !sameSecret(csrfToken, expected)) return yield* badCsrf
          yield* store.remove(yield* secrets.hashApiKey(token))
        }).pipe(Effect.withSpan("verbatim.web.signOut"))
    })
  })
)

/** Removes up to `limit` sessions that ended (expired, or their key revoked or gone); how many. */
export const sweepWebSessions = (limit: number) =>
  Effect.flatMap(WebSessionStore, (store) => Effect.flatMap(DateTime.now, (now) => store.sweep(now, limit)))

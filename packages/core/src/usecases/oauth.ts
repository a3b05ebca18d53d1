/**
 * The authorization server that signs hosted assistants in (the MCP authorization spec, OAuth 2.1):
 * dynamic client registration, the authorization code with PKCE S256 (a person signs in on the
 * consent page with one of their API keys), short-lived access tokens, rotating refresh tokens,
 * revocation, and the access tokens' accounts for the resource server.
 *
 * - Every secret is random (`Secrets.newApiKey`'s 256 bits) with a prefix of its own (`vbo_cs_`
 *   client secrets, `vbo_ac_` codes, `vbo_at_` access tokens, `vbo_rt_` refresh tokens) and is
 *   stored as its hash only.
 * - Registration is open (RFC 7591) but bounded: `registrationLimits` per request, a rate limit
 *   per client address, and clients never signed in with are removed after
 *   `oauthLifetimes.unusedClient` (`sweepExpiredOAuth`).
 * - The consent page never holds the API key: a key checked there becomes a sign-in kept by the
 *   store (a random id in the page, stored as its hash), bound to its authorization request, for
 *   10 minutes, taken once by allow or deny.
 * - A code, its grant and the grant's tokens follow the API key that signed in: once the key is
 *   revoked (or deleted, with its account) the code is refused, the tokens answer 401 and refresh
 *   is refused, on every server at once (the store reads the key's state with the token).
 * - Codes live 10 minutes and are taken once; a code must come back with the client, the
 *   redirect URI and the PKCE verifier it was issued for. A redirect URI matches a registered one
 *   exactly, or with another port on loopback (RFC 8252 §7.3, `OAuth.redirectUriMatches`). A code
 *   presented again revokes the grant it made (OAuth 2.1 §4.1.3): someone else holds it.
 * - Access tokens live an hour; refresh tokens 30 days and are rotated: each works once. A refresh
 *   token presented again (stolen, or replayed) revokes its whole grant.
 * - Revoking a token revokes its grant (every token of that sign-in); the admin command revokes
 *   grants and clients.
 * - Codes and tokens past their expiry are only ever refused: the worker removes them on its
 *   reconcile rhythm (`sweepExpiredOAuth`), a bounded number a round.
 */
import { Errors, type Ids, OAuth } from "@verbatim/domain"
import { Context, Data, DateTime, Duration, Effect, Layer, Option } from "effect"
import type { PersistenceError } from "../errors.js"
import type { Account, AccountWithBalance } from "../ports/accounts.js"
import { Accounts } from "../ports/accounts.js"
import { ServiceUrl } from "../ports/batches.js"
import { type OAuthClientRecord, OAuthStore, type OAuthTokenRecord, PkceHash } from "../ports/oauth.js"
import { RateLimiter } from "../ports/rate-limiter.js"
import { Secrets } from "../ports/secrets.js"
import { Access } from "./tags.js"

export const oauthPrefixes = {
  clientSecret: "vbo_cs_",
  code: "vbo_ac_",
  accessToken: "vbo_at_",
  refreshToken: "vbo_rt_",
  signIn: "vbo_si_"
} as const

export const oauthLifetimes = {
  code: Duration.minutes(10),
  /** A sign-in on the consent page, from the key typed to allow or deny. */
  signIn: Duration.minutes(10),
  accessToken: Duration.hours(1),
  refreshToken: Duration.days(30),
  /** A registered client that never completed a sign-in is removed after this. */
  unusedClient: Duration.hours(24)
} as const

/** What one registration may hold, and how often one address may register. */
export const registrationLimits = {
  redirectUris: 5,
  redirectUriLength: 512,
  clientNameLength: 100,
  /** Per client address: a burst of 10, then one a second. */
  rate: { requestsPerSecond: 1, burst: 10 }
} as const

/** Whether a bearer token is an OAuth access token (anything else is taken for an API key). */
export const isAccessToken = (token: string): boolean => token.startsWith(oauthPrefixes.accessToken)

/** An OAuth error answer (RFC 6749 §5.2, RFC 7591 §3.2.2): its code, text and HTTP status. */
export class OAuthError extends Data.TaggedError("OAuthError")<{
  readonly error:
    | "invalid_request"
    | "invalid_client"
    | "invalid_grant"
    | "unauthorized_client"
    | "unsupported_grant_type"
    | "unsupported_response_type"
    | "invalid_scope"
    | "invalid_target"
    | "invalid_client_metadata"
    | "invalid_redirect_uri"
    | "access_denied"
    | "rate_limit_exceeded"
  readonly description: string
  readonly status: 400 | 401 | 429
  /** The request field at fault, when one is. */
  readonly field?: string | undefined
  /** Seconds to wait (429). */
  readonly retryAfterSeconds?: number | undefined
}> {}

const oauthError = (
  error: OAuthError["error"],
  description: string,
  status: 400 | 401 | 429 = 400,
  field?: string
) => new OAuthError({ error, description, status, field })

export interface ClientRegistration {
  readonly redirect_uris: ReadonlyArray<string>
  readonly client_name?: string | undefined
  readonly token_endpoint_auth_method?: string | undefined
  readonly grant_types?: ReadonlyArray<string> | undefined
  readonly response_types?: ReadonlyArray<string> | undefined
}

export interface RegisteredClient {
  readonly client_id: string
  readonly client_secret?: string
  readonly client_id_issued_at: number
  readonly client_secret_expires_at?: number
  readonly client_name: string
  readonly redirect_uris: ReadonlyArray<string>
  readonly token_endpoint_auth_method: "none" | "client_secret_post" | "client_secret_basic"
  readonly grant_types: ReadonlyArray<string>
  readonly response_types: ReadonlyArray<string>
}

/** The parameters of an authorization request (`GET /oauth/authorize`, kept in the consent form). */
export interface AuthorizationRequest {
  readonly response_type?: string | undefined
  readonly client_id?: string | undefined
  readonly redirect_uri?: string | undefined
  readonly code_challenge?: string | undefined
  readonly code_challenge_method?: string | undefined
  readonly state?: string | undefined
  readonly scope?: string | undefined
  readonly resource?: string | undefined
}

/** A checked authorization request: its client and where the answer goes. */
export interface CheckedAuthorization {
  readonly client: OAuthClientRecord
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly state: string | undefined
  readonly scope: string | null
  readonly resource: string | null
}

/** Why an authorization request is refused, and where that may be said: the page, or the client. */
export interface AuthorizationFailure {
  readonly error: OAuthError
  /** The client's registered redirect URI the error may go back to; none: say it on the page. */
  readonly redirectTo: string | undefined
}

/** The token endpoint's form, with the client's credentials wherever they came from. */
export interface TokenRequest {
  readonly grant_type?: string | undefined
  readonly code?: string | undefined
  readonly redirect_uri?: string | undefined
  readonly code_verifier?: string | undefined
  readonly refresh_token?: string | undefined
  readonly client_id?: string | undefined
  readonly client_secret?: string | undefined
  readonly resource?: string | undefined
}

export interface TokenResponse {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly refresh_token: string
  readonly scope?: string
}

/** A person signed in on the consent page: the account, and the sign-in id the page carries. */
export interface SignedIn {
  readonly account: AccountWithBalance
  readonly signIn: string
}

export interface OAuthServerService {
  /** Registers a client for a caller at `address` (rate-limited per address). */
  readonly register: (
    request: ClientRegistration,
    address: string
  ) => Effect.Effect<RegisteredClient, OAuthError | PersistenceError>
  /**
   * Checks an authorization request. An unknown client or a redirect URI it did not register has no
   * `redirectTo` (shown on the page, never sent anywhere); other faults go back to the client's
   * checked redirect URI (`redirectTo`, see `errorRedirect`).
   */
  readonly checkAuthorization: (
    request: AuthorizationRequest
  ) => Effect.Effect<CheckedAuthorization, AuthorizationFailure | PersistenceError>
  /**
   * Signs a person in with an API key typed on the consent page, for this authorization request:
   * the account with its balance now, and a sign-in id (held by the store, never the key).
   */
  readonly signIn: (
    apiKey: string,
    checked: CheckedAuthorization
  ) => Effect.Effect<SignedIn, Errors.ApiError | PersistenceError>
  /**
   * Takes the sign-in and issues a code for its account and key: the redirect URI with `code`,
   * `state` and `iss`. A sign-in unknown, used, expired, made for another request or whose key was
   * revoked since is `access_denied` (the page asks to sign in again).
   */
  readonly approve: (
    signIn: string,
    checked: CheckedAuthorization
  ) => Effect.Effect<string, OAuthError | PersistenceError>
  /** Takes the sign-in, if any: the redirect URI with `error=access_denied`, `state` and `iss`. */
  readonly deny: (
    signIn: string | undefined,
    checked: CheckedAuthorization
  ) => Effect.Effect<string, PersistenceError>
  /** Where an error goes back to the client: the checked redirect URI with `error`, `state` and `iss`. */
  readonly errorRedirect: (redirectUri: string, error: OAuthError, state: string | undefined) => string
  readonly token: (request: TokenRequest) => Effect.Effect<TokenResponse, OAuthError | PersistenceError>
  /** RFC 7009: revokes the grant of a token; unknown tokens are fine (200 all the same). */
  readonly revoke: (token: string) => Effect.Effect<void, PersistenceError>
  /** The account of a live access token (`invalid_api_key` otherwise, as the API answers). */
  readonly authenticate: (accessToken: string) => Effect.Effect<Account, Errors.ApiError | PersistenceError>
}

export class OAuthServer extends Context.Tag("@verbatim/core/OAuthServer")<
  OAuthServer,
  OAuthServerService
>() {}

/**
 * Schemes a browser or the web handles itself, never an app's: a redirect there would run script,
 * show or fetch something other than the client (`view-source:`, `about:`, `data:`, …).
 */
const forbiddenSchemes = new Set([
  "javascript:",
  "vbscript:",
  "data:",
  "file:",
  "blob:",
  "filesystem:",
  "about:",
  "view-source:",
  "ws:",
  "wss:",
  "ftp:",
  "mailto:",
  "tel:",
  "sms:",
  "urn:",
  "chrome:",
  "chrome-extension:",
  "moz-extension:",
  "edge:",
  "resource:",
  "jar:",
  "intent:"
])
const loopback = new Set(["localhost", "127.0.0.1", "[::1]"])
/** An app's own scheme (RFC 8252 §7.1), e.g. `vscode:`, `cursor:` or `com.example.app:`. */
const appScheme = /^[a-z][a-z0-9+.-]*:$/

/**
 * A redirect URI a client may register: absolute, no fragment, and https, http on this machine
 * (loopback) or an app's own scheme; never one the browser handles itself.
 */
export const redirectUriProblem = (uri: string): Option.Option<string> => {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return Option.some(`${uri} is not an absolute URI`)
  }
  if (url.hash !== "" || uri.includes("#")) return Option.some(`${uri} has a fragment`)
  if (url.protocol === "https:") return url.host === "" ? Option.some(`${uri} names no host`) : Option.none()
  if (url.protocol === "http:") {
    return loopback.has(url.hostname)
      ? Option.none()
      : Option.some(`${uri} must use https (http only on localhost)`)
  }
  if (forbiddenSchemes.has(url.protocol) || !appScheme.test(url.protocol)) {
    return Option.some(`${uri} uses a scheme that is not an app's (${url.protocol})`)
  }
  return Option.none()
}

const pkceChallenge = /^[A-Za-z0-9_-]{43}$/
const pkceVerifier = /^[A-Za-z0-9._~-]{43,128}$/

const invalidToken = (why: string) =>
  Errors.apiError("invalid_api_key", `Missing or invalid access token: ${why}`)

export const OAuthServerLive = Layer.effect(
  OAuthServer,
  Effect.gen(function* () {
    const store = yield* OAuthStore
    const secrets = yield* Secrets
    const accounts = yield* Accounts
    const access = yield* Access
    const limiter = yield* RateLimiter
    const s256 = yield* PkceHash
    const serviceUrl = (yield* ServiceUrl).replace(/\/+$/, "")

    const fresh = (prefix: string) =>
      Effect.map(secrets.newApiKey, (key) => `${prefix}${key.slice(key.indexOf("_") + 1)}`)
    const hash = secrets.hashApiKey

    const resourceProblem = (resource: string | undefined): Option.Option<OAuthError> => {
      if (resource === undefined || resource === "") return Option.none()
      let url: URL
      try {
        url = new URL(resource)
      } catch {
        return Option.some(oauthError("invalid_target", "resource must be an absolute URI"))
      }
      return url.origin === new URL(serviceUrl).origin
        ? Option.none()
        : Option.some(oauthError("invalid_target", `resource must be on ${serviceUrl}`))
    }

    const register: OAuthServerService["register"] = (request, address) =>
      Effect.gen(function* () {
        const verdict = yield* limiter.take(`oauth-register:${address}`, registrationLimits.rate)
        if (!verdict.allowed) {
          return yield* new OAuthError({
            error: "rate_limit_exceeded",
            description: `too many registrations from this address; try again in ${verdict.retryAfterSeconds} s`,
            status: 429,
            retryAfterSeconds: verdict.retryAfterSeconds
          })
        }
        const { redirectUris, redirectUriLength, clientNameLength } = registrationLimits
        const badUris = (description: string) =>
          oauthError("invalid_redirect_uri", description, 400, "redirect_uris")
        if (!Array.isArray(request.redirect_uris) || request.redirect_uris.length === 0) {
          return yield* badUris("redirect_uris must list at least one URI")
        }
        if (request.redirect_uris.length > redirectUris) {
          return yield* badUris(`at most ${redirectUris} redirect_uris`)
        }
        for (const uri of request.redirect_uris) {
          if (typeof uri !== "string" || uri.length > redirectUriLength) {
            return yield* badUris(`every redirect URI is a string of at most ${redirectUriLength} characters`)
          }
          const problem = redirectUriProblem(uri)
          if (Option.isSome(problem)) return yield* badUris(problem.value)
        }
        if (
          request.client_name !== undefined &&
          (typeof request.client_name !== "string" || request.client_name.trim().length > clientNameLength)
        ) {
          return yield* oauthError(
            "invalid_client_metadata",
            `client_name is a string of at most ${clientNameLength} characters`,
            400,
            "client_name"
          )
        }
        const method = request.token_endpoint_auth_method ?? "client_secret_basic"
        if (method !== "none" && method !== "client_secret_post" && method !== "client_secret_basic") {
          return yield* oauthError(
            "invalid_client_metadata",
            "token_endpoint_auth_method must be none, client_secret_post or client_secret_basic"
          )
        }
        for (const list of [request.grant_types, request.response_types]) {
          if (list !== undefined && !Array.isArray(list)) {
            return yield* oauthError("invalid_client_metadata", "grant_types and response_types are arrays")
          }
        }
        for (const grant of request.grant_types ?? []) {
          if (grant !== "authorization_code" && grant !== "refresh_token") {
            return yield* oauthError("invalid_client_metadata", `grant type ${grant} is not offered`)
          }
        }
        for (const type of request.response_types ?? []) {
          if (type !== "code")
            return yield* oauthError("invalid_client_metadata", `response type ${type} is not offered`)
        }
        const name = typeof request.client_name === "string" ? request.client_name.trim() : ""
        const now = yield* DateTime.now
        const id = yield* secrets.uuid
        const secret = method === "none" ? undefined : yield* fresh(oauthPrefixes.clientSecret)
        yield* store.saveClient({
          id,
          secretHash: secret === undefined ? null : yield* hash(secret),
          name: name === "" ? "An MCP client" : name,
          redirectUris: request.redirect_uris,
          createdAt: now
        })
        return {
          client_id: id,
          ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
          client_id_issued_at: Math.floor(DateTime.toEpochMillis(now) / 1000),
          client_name: name === "" ? "An MCP client" : name,
          redirect_uris: request.redirect_uris,
          token_endpoint_auth_method: method,
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"]
        } satisfies RegisteredClient
      }).pipe(Effect.withSpan("verbatim.oauth.register"))

    const checkAuthorization: OAuthServerService["checkAuthorization"] = (request) =>
      Effect.gen(function* () {
        const page = (error: OAuthError): Effect.Effect<never, AuthorizationFailure> =>
          Effect.fail({ error, redirectTo: undefined })
        if (request.client_id === undefined || request.client_id === "") {
          return yield* page(oauthError("invalid_request", "client_id is missing"))
        }
        const found = /^[0-9a-f-]{36}$/i.test(request.client_id)
          ? yield* store.client(request.client_id)
          : Option.none()
        if (Option.isNone(found))
          return yield* page(oauthError("invalid_client", "this client is not registered"))
        const client = found.value
        const redirectUri =
          request.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined)
        // Any port on a loopback redirect URI (RFC 8252 §7.3); the URI as presented is the one the
        // code goes back to and must come back with.
        if (redirectUri === undefined || !OAuth.isRegisteredRedirectUri(client.redirectUris, redirectUri)) {
          return yield* page(oauthError("invalid_request", "redirect_uri is not one this client registered"))
        }
        const back = (error: OAuthError): Effect.Effect<never, AuthorizationFailure> =>
          Effect.fail({ error, redirectTo: redirectUri })
        if (request.response_type !== "code") {
          return yield* back(oauthError("unsupported_response_type", "response_type must be code"))
        }
        if (request.code_challenge_method !== "S256" || !pkceChallenge.test(request.code_challenge ?? "")) {
          return yield* back(
            oauthError(
              "invalid_request",
              "PKCE is required: code_challenge (base64url SHA-256) with code_challenge_method S256"
            )
          )
        }
        const target = resourceProblem(request.resource)
        if (Option.isSome(target)) return yield* back(target.value)
        return {
          client,
          redirectUri,
          codeChallenge: request.code_challenge as string,
          state: request.state,
          scope: request.scope ?? null,
          resource: request.resource ?? null
        }
      })

    /** The hash an authorization request's sign-in is bound to: everything its code will carry. */
    const requestHash = (checked: CheckedAuthorization) =>
      hash(
        JSON.stringify([
          checked.client.id,
          checked.redirectUri,
          checked.codeChallenge,
          checked.state ?? null,
          checked.scope,
          checked.resource
        ])
      )

    const withParams = (redirectUri: string, params: Record<string, string | undefined>) => {
      const url = new URL(redirectUri)
      for (const [name, value] of Object.entries(params))
        if (value !== undefined) url.searchParams.set(name, value)
      url.searchParams.set("iss", serviceUrl)
      return url.toString()
    }

    const errorRedirect: OAuthServerService["errorRedirect"] = (redirectUri, error, state) =>
      withParams(redirectUri, { error: error.error, error_description: error.description, state })

    const signIn: OAuthServerService["signIn"] = (apiKey, checked) =>
      Effect.gen(function* () {
        const gone = Errors.apiError(
          "invalid_api_key",
          "Missing or invalid API key: the key is unknown or revoked"
        )
        const authenticated = yield* access.authenticate(apiKey)
        const id = yield* fresh(oauthPrefixes.signIn)
        const now = yield* DateTime.now
        const saved = yield* store.saveSignIn({
          idHash: yield* hash(id),
          clientId: checked.client.id,
          keyHash: yield* hash(apiKey.trim()),
          requestHash: yield* requestHash(checked),
          expiresAt: DateTime.addDuration(now, oauthLifetimes.signIn)
        })
        if (Option.isNone(saved) || saved.value.accountId !== authenticated.id) return yield* gone
        const account = yield* accounts.get(authenticated.id)
        if (Option.isNone(account)) return yield* gone
        return { account: account.value, signIn: id }
      }).pipe(Effect.withSpan("verbatim.oauth.signIn"))

    /** The sign-in of `id` for this request, taken (it never serves again). */
    const takeSignIn = (id: string, checked: CheckedAuthorization) =>
      Effect.gen(function* () {
        const again = oauthError("access_denied", "this sign-in expired or was already used; sign in again")
        if (!id.startsWith(oauthPrefixes.signIn)) return yield* again
        const taken = yield* store.takeSignIn(yield* hash(id))
        if (Option.isNone(taken)) return yield* again
        const signedIn = taken.value
        const now = yield* DateTime.now
        if (
          signedIn.keyRevoked ||
          !DateTime.lessThan(now, signedIn.expiresAt) ||
          signedIn.clientId !== checked.client.id ||
          signedIn.requestHash !== (yield* requestHash(checked))
        ) {
          return yield* again
        }
        return signedIn
      })

    const approve: OAuthServerService["approve"] = (id, checked) =>
      Effect.gen(function* () {
        const signedIn = yield* takeSignIn(id, checked)
        const code = yield* fresh(oauthPrefixes.code)
        const now = yield* DateTime.now
        yield* store.saveCode({
          codeHash: yield* hash(code),
          clientId: checked.client.id,
          accountId: signedIn.accountId,
          apiKeyId: signedIn.apiKeyId,
          redirectUri: checked.redirectUri,
          codeChallenge: checked.codeChallenge,
          resource: checked.resource,
          scope: checked.scope,
          expiresAt: DateTime.addDuration(now, oauthLifetimes.code)
        })
        return withParams(checked.redirectUri, { code, state: checked.state })
      }).pipe(Effect.withSpan("verbatim.oauth.approve"))

    const deny: OAuthServerService["deny"] = (id, checked) =>
      Effect.gen(function* () {
        if (id !== undefined) yield* Effect.ignore(takeSignIn(id, checked))
        return errorRedirect(
          checked.redirectUri,
          oauthError("access_denied", "the person declined"),
          checked.state
        )
      })

    /** The client of a token request, its secret checked when it has one. */
    const authenticateClient = (request: TokenRequest) =>
      Effect.gen(function* () {
        const unknown = oauthError("invalid_client", "client authentication failed", 401)
        if (request.client_id === undefined || !/^[0-9a-f-]{36}$/i.test(request.client_id))
          return yield* unknown
        const found = yield* store.client(request.client_id)
        if (Option.isNone(found)) return yield* unknown
        const client = found.value
        if (client.secretHash !== null) {
          if (request.client_secret === undefined) return yield* unknown
          if ((yield* hash(request.client_secret)) !== client.secretHash) return yield* unknown
        }
        return client
      })

    const issue = (grantId: string, resource: string | null, scope: string | null) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const accessToken = yield* fresh(oauthPrefixes.accessToken)
        const refreshToken = yield* fresh(oauthPrefixes.refreshToken)
        yield* store.saveToken({
          tokenHash: yield* hash(accessToken),
          kind: "access",
          grantId,
          resource,
          scope,
          createdAt: now,
          expiresAt: DateTime.addDuration(now, oauthLifetimes.accessToken)
        })
        yield* store.saveToken({
          tokenHash: yield* hash(refreshToken),
          kind: "refresh",
          grantId,
          resource,
          scope,
          createdAt: now,
          expiresAt: DateTime.addDuration(now, oauthLifetimes.refreshToken)
        })
        return {
          access_token: accessToken,
          token_type: "Bearer" as const,
          expires_in: Math.round(Duration.toSeconds(oauthLifetimes.accessToken)),
          refresh_token: refreshToken,
          ...(scope === null ? {} : { scope })
        }
      })

    const live = (token: OAuthTokenRecord, now: DateTime.Utc) =>
      token.revokedAt === null && DateTime.lessThan(now, token.expiresAt)

    const token: OAuthServerService["token"] = (request) =>
      Effect.gen(function* () {
        const client = yield* authenticateClient(request)
        const now = yield* DateTime.now
        const badGrant = (why: string) => oauthError("invalid_grant", why)
        if (request.grant_type === "authorization_code") {
          if (request.code === undefined || request.code_verifier === undefined) {
            return yield* oauthError("invalid_request", "code and code_verifier are required")
          }
          const codeHash = yield* hash(request.code)
          const taken = yield* store.takeCode(codeHash)
          if (Option.isNone(taken)) {
            // A code already exchanged, presented again: someone else holds it, so the grant it made
            // and every token of it are revoked (OAuth 2.1 §4.1.3).
            if (yield* store.revokeGrantOfCode(codeHash, now)) {
              yield* Effect.logWarning("a used authorization code came back: its grant is revoked")
            }
            return yield* badGrant("the code is unknown, used or expired")
          }
          const code = taken.value
          if (code.keyRevoked) return yield* badGrant("the API key that signed in was revoked")
          if (code.clientId !== client.id) return yield* badGrant("the code was issued to another client")
          if (!DateTime.lessThan(now, code.expiresAt)) return yield* badGrant("the code expired")
          if ((request.redirect_uri ?? code.redirectUri) !== code.redirectUri) {
            return yield* badGrant("redirect_uri differs from the authorization request's")
          }
          if (
            !pkceVerifier.test(request.code_verifier) ||
            (yield* s256(request.code_verifier)) !== code.codeChallenge
          ) {
            return yield* badGrant("the code_verifier does not match the code_challenge")
          }
          if (
            request.resource !== undefined &&
            code.resource !== null &&
            request.resource !== code.resource
          ) {
            return yield* oauthError("invalid_target", "resource differs from the authorization request's")
          }
          const grantId = yield* secrets.uuid
          yield* store.saveGrant({
            id: grantId,
            clientId: client.id,
            accountId: code.accountId,
            apiKeyId: code.apiKeyId,
            createdAt: now,
            codeHash
          })
          return yield* issue(grantId, code.resource, code.scope)
        }
        if (request.grant_type === "refresh_token") {
          if (request.refresh_token === undefined)
            return yield* oauthError("invalid_request", "refresh_token is required")
          const found = yield* store.token(yield* hash(request.refresh_token))
          if (Option.isNone(found) || found.value.kind !== "refresh")
            return yield* badGrant("unknown refresh token")
          const refresh = found.value
          if (refresh.clientId !== client.id)
            return yield* badGrant("the refresh token was issued to another client")
          if (!live(refresh, now)) return yield* badGrant("the refresh token expired or was revoked")
          const first = refresh.usedAt === null && (yield* store.useRefreshToken(refresh.tokenHash, now))
          if (!first) {
            // Presented again after rotation: someone else holds it. End the whole sign-in.
            yield* store.revokeGrant(refresh.grantId, now)
            yield* Effect.logWarning("a used refresh token came back: its grant is revoked")
            return yield* badGrant("the refresh token was already used; sign in again")
          }
          return yield* issue(refresh.grantId, refresh.resource, refresh.scope)
        }
        return yield* oauthError(
          "unsupported_grant_type",
          "grant_type must be authorization_code or refresh_token"
        )
      }).pipe(Effect.withSpan("verbatim.oauth.token"))

    const revoke: OAuthServerService["revoke"] = (value) =>
      Effect.gen(function* () {
        const found = yield* store.token(yield* hash(value))
        if (Option.isSome(found)) yield* store.revokeGrant(found.value.grantId, yield* DateTime.now)
      }).pipe(Effect.withSpan("verbatim.oauth.revoke"))

    const authenticate: OAuthServerService["authenticate"] = (value) =>
      Effect.gen(function* () {
        const found = yield* store.token(yield* hash(value))
        if (Option.isNone(found) || found.value.kind !== "access") return yield* invalidToken("unknown token")
        if (!live(found.value, yield* DateTime.now))
          return yield* invalidToken("the token expired or was revoked")
        const account = yield* accounts.get(found.value.accountId)
        return yield* Option.match(account, {
          onNone: () => invalidToken("its account is gone"),
          onSome: Effect.succeed
        })
      })

    return OAuthServer.of({
      register,
      checkAuthorization,
      signIn,
      approve,
      deny,
      errorRedirect,
      token,
      revoke,
      authenticate
    })
  })
)

/** The admin's view of the sign-ins: list and revoke grants, or every grant of a client. */
export const listGrants = (options: {
  readonly accountId?: Ids.AccountId | undefined
  readonly all: boolean
}) => Effect.flatMap(OAuthStore, (store) => store.grants(options))

export const revokeGrant = (id: string) =>
  Effect.flatMap(OAuthStore, (store) => Effect.flatMap(DateTime.now, (now) => store.revokeGrant(id, now)))

export const revokeClient = (id: string) =>
  Effect.flatMap(OAuthStore, (store) => Effect.flatMap(DateTime.now, (now) => store.revokeClient(id, now)))

/**
 * Removes up to `limit` codes, sign-ins and tokens past their expiry (never one still usable), and
 * up to `limit` clients registered over `oauthLifetimes.unusedClient` ago that never completed a
 * sign-in; how many rows.
 */
export const sweepExpiredOAuth = (limit: number) =>
  Effect.flatMap(OAuthStore, (store) =>
    Effect.flatMap(DateTime.now, (now) =>
      Effect.zipWith(
        store.sweepExpired(now, limit),
        store.sweepUnusedClients(DateTime.subtractDuration(now, oauthLifetimes.unusedClient), limit),
        (expired, clients) => expired + clients
      )
    )
  )

/**
 * The OAuth server for hosted assistants (core's `OAuthServer`) on the production wiring and each
 * database: what is stored is a hash, never a client secret, code or token itself; a code needs its
 * PKCE verifier; codes live 10 minutes, access tokens an hour and refresh tokens 30 days, each
 * refused from its expiry on; a consent sign-in is held server-side, bound to its request, taken
 * once; everything a sign-in made follows its API key; registration is rate-limited per address.
 *
 * On the TestClock, so lifetimes are crossed by moving the clock: nothing in these use cases sleeps
 * or polls (the end-to-end flow over HTTP is `apps/mcp/test/oauth.test.ts`, on the live clock).
 */
import { createHash, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import {
  AccountAdmin,
  type CheckedAuthorization,
  OAuthError,
  OAuthServer,
  oauthLifetimes,
  registrationLimits,
  Secrets
} from "@verbatim/core"
import { Duration, Effect, Either, TestClock } from "effect"
import { accountWithKey, expectApiError, useCasesLayer } from "./support.js"

const redirectUri = "http://127.0.0.1:8976/callback"

/** A PKCE verifier and its S256 challenge. */
const pkce = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

/** A registered confidential client, and a code signed in with `key` with its verifier. */
const signIn = (key: string) =>
  Effect.gen(function* () {
    const oauth = yield* OAuthServer
    const client = yield* oauth.register(
      {
        client_name: "Use-case Assistant",
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: "client_secret_post"
      },
      "192.0.2.1"
    )
    const code = yield* newCode(key, client.client_id)
    return { client, ...code }
  })

/** A checked authorization request of the client, with a fresh PKCE pair. */
const authorization = (clientId: string, state = "s") =>
  Effect.gen(function* () {
    const { verifier, challenge } = pkce()
    const checked = yield* (yield* OAuthServer).checkAuthorization({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state
    })
    return { checked, verifier }
  })

/** Signs in with `key` on the consent page and allows: a code and its verifier. */
const newCode = (key: string, clientId: string) =>
  Effect.gen(function* () {
    const oauth = yield* OAuthServer
    const { checked, verifier } = yield* authorization(clientId)
    const signedIn = yield* oauth.signIn(key, checked)
    const back = new URL(yield* oauth.approve(signedIn.signIn, checked))
    return { code: back.searchParams.get("code") ?? "", verifier }
  })

const exchangeCode = (
  client: { client_id: string; client_secret?: string },
  code: string,
  verifier: string
) =>
  Effect.flatMap(OAuthServer, (oauth) =>
    oauth.token({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      client_secret: client.client_secret ?? ""
    })
  )

/** The token error of an exchange that must fail. */
const refused = <A, R>(effect: Effect.Effect<A, unknown, R>) =>
  Effect.map(Effect.either(effect), (result) => {
    expect(Either.isLeft(result), "the exchange should be refused").toBe(true)
    const error = Either.isLeft(result) ? result.left : undefined
    expect(error).toBeInstanceOf(OAuthError)
    return error as OAuthError
  })

layer(useCasesLayer(), { timeout: "60 seconds" })("OAuth server on the production wiring", (it) => {
  it.effect("stores hashes only: no client secret, code or token is kept as itself", () =>
    Effect.gen(function* () {
      const oauth = yield* OAuthServer
      const secrets = yield* Secrets
      const sql = yield* SqlClient.SqlClient
      const { key } = yield* accountWithKey()
      const { client, code, verifier } = yield* signIn(key)
      const secret = client.client_secret ?? ""
      expect(secret).toMatch(/^vbo_cs_/)
      expect(code).toMatch(/^vbo_ac_/)
      const dump = () =>
        Effect.map(
          Effect.all([
            sql`SELECT * FROM oauth_clients`,
            sql`SELECT * FROM oauth_codes`,
            sql`SELECT * FROM oauth_sign_ins`,
            sql`SELECT * FROM oauth_grants`,
            sql`SELECT * FROM oauth_tokens`
          ]),
          (tables) => JSON.stringify(tables)
        )
      const beforeExchange = yield* dump()
      expect(beforeExchange).toContain(yield* secrets.hashApiKey(secret))
      expect(beforeExchange).toContain(yield* secrets.hashApiKey(code))
      const tokens = yield* oauth.token({
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: client.client_id,
        client_secret: secret
      })
      const afterExchange = yield* dump()
      expect(afterExchange).toContain(yield* secrets.hashApiKey(tokens.access_token))
      expect(afterExchange).toContain(yield* secrets.hashApiKey(tokens.refresh_token))
      for (const plain of [secret, code, tokens.access_token, tokens.refresh_token]) {
        expect(beforeExchange).not.toContain(plain)
        expect(afterExchange).not.toContain(plain)
        // Not even the random part without its prefix.
        expect(afterExchange).not.toContain(plain.slice(7))
      }
    })
  )

  it.effect("a code needs the PKCE verifier it was issued for, and a wrong one spends it", () =>
    Effect.gen(function* () {
      const oauth = yield* OAuthServer
      const { key } = yield* accountWithKey()
      const { client, code, verifier } = yield* signIn(key)
      const exchange = (codeVerifier: string) =>
        oauth.token({
          grant_type: "authorization_code",
          code,
          code_verifier: codeVerifier,
          redirect_uri: redirectUri,
          client_id: client.client_id,
          client_secret: client.client_secret ?? ""
        })
      const wrong = yield* refused(exchange(pkce().verifier))
      expect(wrong).toMatchObject({
        error: "invalid_grant",
        description: expect.stringContaining("code_verifier")
      })
      // Taken once: the right verifier comes too late.
      expect((yield* refused(exchange(verifier))).error).toBe("invalid_grant")
    })
  )

  it.effect("codes live 10 minutes, access tokens an hour, refresh tokens 30 days", () =>
    Effect.gen(function* () {
      const oauth = yield* OAuthServer
      const { account, key } = yield* accountWithKey()
      const { client, code: stale, verifier: staleVerifier } = yield* signIn(key)
      const credentials = { client_id: client.client_id, client_secret: client.client_secret ?? "" }
      const exchange = (code: string, verifier: string) =>
        oauth.token({
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          redirect_uri: redirectUri,
          ...credentials
        })
      const refresh = (token: string) =>
        oauth.token({ grant_type: "refresh_token", refresh_token: token, ...credentials })

      // A code exchanged at its 10 minutes is refused.
      yield* TestClock.adjust(oauthLifetimes.code)
      expect((yield* refused(exchange(stale, staleVerifier))).error).toBe("invalid_grant")

      const { code, verifier } = yield* newCode(key, client.client_id)
      yield* TestClock.adjust(Duration.subtract(oauthLifetimes.code, Duration.seconds(1)))
      const tokens = yield* exchange(code, verifier)
      expect(tokens.expires_in).toBe(3600)

      // The access token works for its hour, then never again.
      yield* TestClock.adjust(Duration.subtract(oauthLifetimes.accessToken, Duration.seconds(1)))
      expect((yield* oauth.authenticate(tokens.access_token)).id).toBe(account.id)
      yield* TestClock.adjust(Duration.seconds(1))
      yield* expectApiError(oauth.authenticate(tokens.access_token), "invalid_api_key")

      // Its refresh token still gets a new pair, whose access token works.
      const renewed = yield* refresh(tokens.refresh_token)
      expect((yield* oauth.authenticate(renewed.access_token)).id).toBe(account.id)

      // A refresh token is refused from its 30 days on.
      yield* TestClock.adjust(oauthLifetimes.refreshToken)
      expect((yield* refused(refresh(renewed.refresh_token))).error).toBe("invalid_grant")
      yield* expectApiError(oauth.authenticate(renewed.access_token), "invalid_api_key")
    })
  )

  it.effect("a grant follows its API key: once the key is revoked, its tokens and codes are refused", () =>
    Effect.gen(function* () {
      const oauth = yield* OAuthServer
      const admin = yield* AccountAdmin
      const { account, key, record } = yield* accountWithKey()
      const other = yield* admin.issueKey(account.id)
      const { client, code, verifier } = yield* signIn(key)
      const tokens = yield* exchangeCode(client, code, verifier)
      const pending = yield* newCode(key, client.client_id)
      const otherCode = yield* newCode(other.key, client.client_id)
      const otherTokens = yield* exchangeCode(client, otherCode.code, otherCode.verifier)
      expect((yield* oauth.authenticate(tokens.access_token)).id).toBe(account.id)

      yield* admin.revokeKey(record.id)
      yield* expectApiError(oauth.authenticate(tokens.access_token), "invalid_api_key")
      const refresh = (token: string) =>
        oauth.token({
          grant_type: "refresh_token",
          refresh_token: token,
          client_id: client.client_id,
          client_secret: client.client_secret ?? ""
        })
      expect((yield* refused(refresh(tokens.refresh_token))).error).toBe("invalid_grant")
      expect(yield* refused(exchangeCode(client, pending.code, pending.verifier))).toMatchObject({
        error: "invalid_grant",
        description: expect.stringContaining("revoked")
      })
      // What another key of the account signed in stays.
      expect((yield* oauth.authenticate(otherTokens.access_token)).id).toBe(account.id)
      expect((yield* refresh(otherTokens.refresh_token)).access_token).toMatch(/^vbo_at_/)
    })
  )

  it.effect("a consent sign-in holds no key, serves only its request, once, for 10 minutes", () =>
    Effect.gen(function* () {
      const oauth = yield* OAuthServer
      const admin = yield* AccountAdmin
      const sql = yield* SqlClient.SqlClient
      const { account, key, record } = yield* accountWithKey()
      const { client } = yield* signIn(key)
      const denied = (effect: Effect.Effect<string, unknown>) =>
        Effect.map(refused(effect), (error) => expect(error.error).toBe("access_denied"))
      const signedIn = (checked: CheckedAuthorization) =>
        Effect.map(oauth.signIn(key, checked), (held) => {
          expect(held.account.id).toBe(account.id)
          expect(held.signIn).toMatch(/^vbo_si_/)
          return held.signIn
        })

      // Held by the store as a hash: neither the key nor the sign-in id is kept as itself.
      const first = yield* authorization(client.client_id)
      const id = yield* signedIn(first.checked)
      const stored = JSON.stringify(yield* sql`SELECT * FROM oauth_sign_ins`)
      for (const plain of [key, key.slice(4), id, id.slice(7)]) expect(stored).not.toContain(plain)

      // Another request (here another state; or another PKCE challenge) cannot use it, and spends it.
      const other = yield* authorization(client.client_id, "other-state")
      yield* denied(oauth.approve(id, other.checked))
      yield* denied(oauth.approve(id, first.checked))

      // Taken once.
      const once = yield* signedIn(first.checked)
      expect(new URL(yield* oauth.approve(once, first.checked)).searchParams.get("code")).toMatch(/^vbo_ac_/)
      yield* denied(oauth.approve(once, first.checked))
      yield* denied(oauth.approve("vbo_si_made_up", first.checked))

      // 10 minutes, then refused.
      const late = yield* signedIn(first.checked)
      yield* TestClock.adjust(oauthLifetimes.signIn)
      yield* denied(oauth.approve(late, first.checked))

      // A key revoked after the sign-in: allowing is refused.
      const revokedLater = yield* signedIn(first.checked)
      yield* admin.revokeKey(record.id)
      yield* denied(oauth.approve(revokedLater, first.checked))
      yield* expectApiError(oauth.signIn(key, first.checked), "invalid_api_key")
    })
  )

  it.effect("registration is rate-limited per address: a burst, then one a second", () =>
    Effect.gen(function* () {
      const oauth = yield* OAuthServer
      const register = (address: string) =>
        oauth.register({ redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }, address)
      const from = `198.51.100.${1 + Math.floor(Math.random() * 250)}`
      for (let i = 0; i < registrationLimits.rate.burst; i++) yield* register(from)
      const limited = yield* refused(register(from))
      expect(limited).toMatchObject({ error: "rate_limit_exceeded", status: 429, retryAfterSeconds: 1 })
      // Another address is not held back.
      expect((yield* register(`${from}0`)).client_id).toBeTruthy()
      yield* TestClock.adjust(Duration.seconds(1))
      expect((yield* register(from)).client_id).toBeTruthy()
      expect((yield* refused(register(from))).status).toBe(429)
    })
  )
})

/**
 * The OAuth server for hosted assistants (core's `OAuthServer`) on the production wiring and each
 * database: what is stored is a hash, never a client secret, code or token itself; a code needs its
 * PKCE verifier; codes live 10 minutes, access tokens an hour and refresh tokens 30 days, each
 * refused from its expiry on.
 *
 * On the TestClock, so lifetimes are crossed by moving the clock: nothing in these use cases sleeps
 * or polls (the end-to-end flow over HTTP is `apps/mcp/test/oauth.test.ts`, on the live clock).
 */
import { createHash, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { type Account, OAuthError, OAuthServer, oauthLifetimes, Secrets } from "@verbatim/core"
import { Duration, Effect, Either, TestClock } from "effect"
import { accountWithKey, expectApiError, useCasesLayer } from "./support.js"

const redirectUri = "http://127.0.0.1:8976/callback"

/** A PKCE verifier and its S256 challenge. */
const pkce = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

/** A registered confidential client, and a code for `account` with its verifier. */
const signIn = (account: Account) =>
  Effect.gen(function* () {
    const oauth = yield* OAuthServer
    const client = yield* oauth.register({
      client_name: "Use-case Assistant",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "client_secret_post"
    })
    const code = yield* newCode(account, client.client_id)
    return { client, ...code }
  })

const newCode = (account: Account, clientId: string) =>
  Effect.gen(function* () {
    const oauth = yield* OAuthServer
    const { verifier, challenge } = pkce()
    const checked = yield* oauth.checkAuthorization({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s"
    })
    const back = new URL(yield* oauth.approve(account, checked))
    return { code: back.searchParams.get("code") ?? "", verifier }
  })

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
      const { account } = yield* accountWithKey()
      const { client, code, verifier } = yield* signIn(account)
      const secret = client.client_secret ?? ""
      expect(secret).toMatch(/^vbo_cs_/)
      expect(code).toMatch(/^vbo_ac_/)
      const dump = () =>
        Effect.map(
          Effect.all([
            sql`SELECT * FROM oauth_clients`,
            sql`SELECT * FROM oauth_codes`,
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
      const { account } = yield* accountWithKey()
      const { client, code, verifier } = yield* signIn(account)
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
      const { account } = yield* accountWithKey()
      const { client, code: stale, verifier: staleVerifier } = yield* signIn(account)
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

      const { code, verifier } = yield* newCode(account, client.client_id)
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
})

/**
 * The MCP endpoint and the OAuth server to the letter of the outside rules, over real HTTP:
 * - RFC 8252 §7.3: any port on a loopback redirect URI (VS Code registers `http://127.0.0.1/` and
 *   authorizes on `http://127.0.0.1:<port>/`);
 * - OAuth 2.1 §4.1.3: an authorization code presented again revokes the tokens it issued;
 * - the MCP transport spec (2025-06-18, "Security Warning"): `Origin` validated, 403 for a foreign
 *   one, requests without it pass; CORS (with the preflight) for allowed browser origins;
 * - JSON-RPC errors seen through the official SDK client carry `MCP error <code>:` once.
 */
import { describe, expect, layer } from "@effect/vitest"
import { auth } from "@modelcontextprotocol/sdk/client/auth.js"
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { mcpPath } from "@verbatim/api"
import { Effect } from "effect"
import { TestServer, testServerOn } from "../../server/test/server.js"
import { consentWith } from "../../server/test/support.js"
import { httpClient, initialize, MemoryOAuthProvider, mcpHeaders, toolsList } from "./support.js"

const allowedOrigin = "http://localhost:6274"

const registration = {
  client_name: "Loopback Assistant",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "client_secret_post"
}

const tokenRequest = (base: string, fields: Record<string, string>) =>
  Effect.promise(() =>
    fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields)
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }))
  )

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ mcpAllowedOrigins: [allowedOrigin] }), {
  timeout: "90 seconds",
  excludeTestServices: true
})("the MCP endpoint and OAuth to the letter", (it) => {
  describe("OAuth", () => {
    it.scoped(
      "a loopback redirect URI registered without a port is authorized on any port (RFC 8252 §7.3)",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const base = server.baseUrl
          const registered = yield* server.post("/oauth/register", {
            json: { ...registration, redirect_uris: ["http://127.0.0.1/", "http://[::1]/cb"] }
          })
          expect(registered.status).toBe(201)
          const client = registered.json as { client_id: string; client_secret: string }
          const verifier = "v".repeat(43)
          const challenge = Buffer.from(
            yield* Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)))
          ).toString("base64url")
          const params = (redirectUri: string) => ({
            response_type: "code",
            client_id: client.client_id,
            redirect_uri: redirectUri,
            code_challenge: challenge,
            code_challenge_method: "S256",
            state: "s1"
          })
          // VS Code's request: the registered URI with the port it listens on.
          const presented = "http://127.0.0.1:33418/"
          const page = yield* server.get(`/oauth/authorize?${new URLSearchParams(params(presented))}`)
          expect(page.status).toBe(200)
          expect(page.text).toContain("Loopback Assistant")
          expect(
            (yield* server.get(`/oauth/authorize?${new URLSearchParams(params("http://[::1]:5/cb"))}`)).status
          ).toBe(200)
          // Only the port is free: another path, host or scheme is still refused.
          for (const other of [
            "http://127.0.0.1:33418/other",
            "http://localhost:33418/",
            "https://127.0.0.1:33418/"
          ]) {
            const refused = yield* server.get(`/oauth/authorize?${new URLSearchParams(params(other))}`)
            expect(refused.status, other).toBe(400)
            expect(refused.text).toContain("redirect_uri is not one this client registered")
          }
          // The code goes back to the URI as presented, and is exchanged with it.
          const { allowed } = yield* Effect.promise(() => consentWith(base, params(presented), key))
          expect(allowed.status).toBe(302)
          const back = new URL(allowed.headers.get("location") ?? "")
          expect(`${back.origin}${back.pathname}`).toBe("http://127.0.0.1:33418/")
          const exchanged = yield* tokenRequest(base, {
            grant_type: "authorization_code",
            code: back.searchParams.get("code") ?? "",
            code_verifier: verifier,
            redirect_uri: presented,
            client_id: client.client_id,
            client_secret: client.client_secret
          })
          expect(exchanged.status).toBe(200)
          expect(exchanged.body.access_token).toMatch(/^vbo_at_/)
        })
    )

    it.scoped(
      "a code exchanged twice: refused, and the tokens it issued are revoked (OAuth 2.1 §4.1.3)",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const base = server.baseUrl
          const serverUrl = new URL(`${base}${mcpPath}`)
          const provider = new MemoryOAuthProvider("http://127.0.0.1:9/callback", registration, "state-1")
          yield* Effect.promise(() => auth(provider, { serverUrl }))
          const params = Object.fromEntries((provider.authorizationUrl as URL).searchParams)
          const { allowed } = yield* Effect.promise(() => consentWith(base, params, key))
          const code = new URL(allowed.headers.get("location") ?? "").searchParams.get("code") ?? ""
          expect(yield* Effect.promise(() => auth(provider, { serverUrl, authorizationCode: code }))).toBe(
            "AUTHORIZED"
          )
          const first = provider.saved as OAuthTokens
          const withToken = (token: string) =>
            server.post(mcpPath, {
              json: toolsList,
              headers: { ...mcpHeaders, authorization: `Bearer ${token}` }
            })
          expect((yield* withToken(first.access_token)).status).toBe(200)

          const secret = (provider.client as { client_secret?: string }).client_secret ?? ""
          const replay = yield* tokenRequest(base, {
            grant_type: "authorization_code",
            code,
            code_verifier: provider.codeVerifier(),
            redirect_uri: "http://127.0.0.1:9/callback",
            client_id: provider.client?.client_id ?? "",
            client_secret: secret
          })
          expect(replay).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
          // What the code issued is over: the access token answers 401, its refresh token is refused.
          const after = yield* withToken(first.access_token)
          expect(after.status).toBe(401)
          expect(after.json).toMatchObject({ error: "invalid_api_key" })
          const refresh = yield* tokenRequest(base, {
            grant_type: "refresh_token",
            refresh_token: first.refresh_token ?? "",
            client_id: provider.client?.client_id ?? "",
            client_secret: secret
          })
          expect(refresh).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
        })
    )
  })

  describe("Origin and CORS on the MCP endpoint", () => {
    it.scoped(
      "a foreign Origin answers 403 with the error body; none, the service's own and allowed ones pass",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const post = (origin: string | undefined) =>
            server.post(mcpPath, {
              json: initialize,
              key,
              headers: { ...mcpHeaders, ...(origin === undefined ? {} : { origin }) }
            })
          for (const foreign of [
            "https://evil.example",
            "null",
            "http://localhost:6275",
            "http://127.0.0.1:1"
          ]) {
            const refused = yield* post(foreign)
            expect(refused.status, foreign).toBe(403)
            expect(refused.json).toMatchObject({ error: "forbidden" })
            expect((refused.json as { message: string }).message).toContain("VERBATIM_MCP_ALLOWED_ORIGINS")
            expect(refused.headers.get("access-control-allow-origin")).toBeNull()
            // A foreign origin is refused before authentication, and on every method.
            expect((yield* server.get(mcpPath, { headers: { origin: foreign } })).status).toBe(403)
            expect((yield* server.del(mcpPath, { headers: { origin: foreign } })).status).toBe(403)
          }
          const bare = yield* post(undefined)
          expect(bare.status).toBe(200)
          expect(bare.headers.get("access-control-allow-origin")).toBeNull()
          const own = yield* post(new URL(server.baseUrl).origin)
          expect(own.status).toBe(200)
          expect(own.headers.get("access-control-allow-origin")).toBe(new URL(server.baseUrl).origin)
          const allowed = yield* post(allowedOrigin)
          expect(allowed.status).toBe(200)
          expect(allowed.headers.get("access-control-allow-origin")).toBe(allowedOrigin)
          expect(allowed.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id")
          expect(allowed.headers.get("vary")).toContain("Origin")
          // The 401 of an allowed origin is readable by the page: CORS and the exposed challenge.
          const unauthenticated = yield* server.post(mcpPath, {
            json: initialize,
            headers: { ...mcpHeaders, origin: allowedOrigin }
          })
          expect(unauthenticated.status).toBe(401)
          expect(unauthenticated.headers.get("access-control-allow-origin")).toBe(allowedOrigin)
          expect(unauthenticated.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate")
          expect(unauthenticated.headers.get("www-authenticate")).toContain("resource_metadata=")
        })
    )

    it.scoped(
      "the preflight (OPTIONS) answers an allowed origin with the transport's methods and headers",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const preflight = (origin: string) =>
            server.request("OPTIONS", mcpPath, {
              headers: {
                origin,
                "access-control-request-method": "POST",
                "access-control-request-headers": "authorization, content-type, mcp-protocol-version"
              }
            })
          const ok = yield* preflight(allowedOrigin)
          expect(ok.status).toBe(204)
          expect(ok.headers.get("access-control-allow-origin")).toBe(allowedOrigin)
          expect(ok.headers.get("vary")).toContain("Origin")
          const methods = (ok.headers.get("access-control-allow-methods") ?? "").split(/,\s*/)
          expect(methods).toEqual(expect.arrayContaining(["GET", "POST", "DELETE", "OPTIONS"]))
          const headers = (ok.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/,\s*/)
          expect(headers).toEqual(
            expect.arrayContaining([
              "authorization",
              "content-type",
              "mcp-session-id",
              "mcp-protocol-version",
              "last-event-id"
            ])
          )
          expect(ok.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate")
          const foreign = yield* preflight("https://evil.example")
          expect(foreign.status).toBe(403)
          expect(foreign.json).toMatchObject({ error: "forbidden" })
          expect(foreign.headers.get("access-control-allow-origin")).toBeNull()
        })
    )
  })

  describe("JSON-RPC errors through the SDK's client", () => {
    it.scoped("say `MCP error <code>:` once", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount()
        const { client } = yield* httpClient(server.baseUrl, key)
        const unknownTool = yield* Effect.promise(() =>
          client.callTool({ name: "no_such_tool", arguments: {} }).then(
            () => "answered",
            (error: Error) => error.message
          )
        )
        expect(unknownTool).toMatch(/^MCP error -32602: unknown tool no_such_tool/)
        expect(unknownTool.match(/MCP error/g)).toHaveLength(1)
        const missing = yield* Effect.promise(() =>
          client.readResource({ uri: "transcript://dQw4w9WgXcQ/en" }).then(
            () => "answered",
            (error: Error) => error.message
          )
        )
        expect(missing).toMatch(/^MCP error -?\d+: /)
        expect(missing.match(/MCP error/g)).toHaveLength(1)
      })
    )
  })
})

/**
 * OAuth for hosted assistants, end to end with the SDK's client-side auth helpers (`auth()` and an
 * in-memory `OAuthClientProvider`) against a real server: the MCP endpoint's 401 names its
 * resource metadata, discovery, dynamic registration, the consent page (sign in with an API key,
 * see the account, allow), the code exchanged with PKCE, tools/list and a tool call with the access
 * token, refresh with rotation, revocation then 401; API keys keep working.
 */
import { describe, expect, layer } from "@effect/vitest"
import { auth } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { mcpPath } from "@verbatim/api"
import { Effect } from "effect"
import { type TestResponse, TestServer, TestServerLive } from "../../server/test/server.js"
import { consentWith, postConsent } from "../../server/test/support.js"
import { initialize, MemoryOAuthProvider, mcpHeaders, toolsList } from "./support.js"

const redirectUrl = "http://127.0.0.1:9/callback"

const form = postConsent

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "90 seconds", excludeTestServices: true })(
  "OAuth for hosted assistants",
  (it) => {
    describe("with the SDK's client-side auth helpers", () => {
      it.scoped(
        "registration, consent, PKCE, token, tools with the token, refresh, revocation then 401",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { account, key } = yield* server.newAccount({ plan: "business", credits: 77 })
            const base = server.baseUrl
            const serverUrl = new URL(`${base}${mcpPath}`)

            // The MCP endpoint's 401 says where its resource metadata is.
            const bare = yield* server.post(mcpPath, { json: initialize, headers: mcpHeaders })
            expect(bare.status).toBe(401)
            expect(bare.headers.get("www-authenticate")).toBe(
              `Bearer realm="verbatim", resource_metadata="${base}/.well-known/oauth-protected-resource${mcpPath}"`
            )
            const resource = yield* server.get(`/.well-known/oauth-protected-resource${mcpPath}`)
            expect(resource.json).toMatchObject({
              resource: `${base}${mcpPath}`,
              authorization_servers: [base]
            })
            const metadata = yield* server.get("/.well-known/oauth-authorization-server")
            expect(metadata.json).toMatchObject({
              issuer: base,
              code_challenge_methods_supported: ["S256"],
              registration_endpoint: `${base}/oauth/register`
            })

            const provider = new MemoryOAuthProvider(
              redirectUrl,
              {
                client_name: "Test Assistant",
                grant_types: ["authorization_code", "refresh_token"],
                response_types: ["code"],
                token_endpoint_auth_method: "client_secret_post"
              },
              "state-123"
            )
            const started = yield* Effect.promise(() => auth(provider, { serverUrl }))
            expect(started).toBe("REDIRECT")
            expect(provider.client?.client_id).toBeTruthy()
            expect((provider.client as { client_secret?: string }).client_secret).toMatch(/^vbo_cs_/)
            const authorizationUrl = provider.authorizationUrl as URL
            expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${base}/oauth/authorize`)
            expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256")
            expect(authorizationUrl.searchParams.get("resource")).toBe(`${base}${mcpPath}`)

            // The person: the consent page, signed in with an API key, shows the account; allow.
            const params = Object.fromEntries(authorizationUrl.searchParams)
            const consent = yield* Effect.promise(async () => {
              const page = await fetch(authorizationUrl)
              const pageText = await page.text()
              const wrong = await form(base, {
                ...params,
                action: "sign_in",
                api_key: "vbt_wrong_key_000000000000000000"
              })
              const wrongText = await wrong.text()
              // Allowing with the key itself, without signing in on the page first, is refused.
              const keyOnly = await form(base, { ...params, action: "allow", api_key: key })
              const keyOnlyText = await keyOnly.text()
              const { signedIn, html: signedInText, allowed } = await consentWith(base, params, key)
              return {
                page,
                pageText,
                wrong,
                wrongText,
                keyOnly,
                keyOnlyText,
                signedIn,
                signedInText,
                allowed
              }
            })
            expect(consent.page.status).toBe(200)
            expect(consent.page.headers.get("content-type")).toContain("text/html")
            expect(consent.pageText).toContain("Test Assistant")
            expect(consent.wrong.status).toBe(401)
            expect(consent.wrongText).toContain("unknown or revoked")
            expect(consent.signedIn.status).toBe(200)
            expect(consent.signedInText).toContain(account.name)
            expect(consent.signedInText).toContain(account.id)
            // The page holds a sign-in id, never the key (not even its random part).
            expect(consent.signedInText).not.toContain(key)
            expect(consent.signedInText).not.toContain(key.slice(4))
            expect(consent.signedInText).toMatch(/name="sign_in" value="vbo_si_/)
            expect(consent.keyOnly.status).toBe(401)
            expect(consent.keyOnlyText).toContain("sign in again")
            expect(consent.allowed.status).toBe(302)
            const back = new URL(consent.allowed.headers.get("location") ?? "")
            expect(back.origin + back.pathname).toBe(redirectUrl)
            expect(back.searchParams.get("state")).toBe("state-123")
            const code = back.searchParams.get("code") ?? ""
            expect(code).toMatch(/^vbo_ac_/)

            // A code this server never issued gets no tokens (a wrong PKCE verifier: packages/runtime/test/usecases/oauth.test.ts).
            const stolen = yield* Effect.promise(() =>
              fetch(`${base}/oauth/token`, {
                method: "POST",
                headers: { "content-type": "application/x-www-form-urlencoded" },
                body: new URLSearchParams({
                  grant_type: "authorization_code",
                  code: "vbo_ac_not_a_code",
                  code_verifier: "x".repeat(43),
                  redirect_uri: redirectUrl,
                  client_id: provider.client?.client_id ?? "",
                  client_secret: (provider.client as { client_secret?: string }).client_secret ?? ""
                })
              }).then(async (r) => ({ status: r.status, body: await r.json() }))
            )
            expect(stolen).toMatchObject({ status: 400, body: { error: "invalid_grant" } })

            const exchanged = yield* Effect.promise(() =>
              auth(provider, { serverUrl, authorizationCode: code })
            )
            expect(exchanged).toBe("AUTHORIZED")
            const first = provider.saved as OAuthTokens
            expect(first.access_token).toMatch(/^vbo_at_/)
            expect(first.refresh_token).toMatch(/^vbo_rt_/)
            expect(first.expires_in).toBe(3600)
            expect(first.token_type.toLowerCase()).toBe("bearer")

            // The code works once; presented again it also ends this sign-in (transport-rules.test.ts).

            // tools/list and a tool call with the access token, for the account that signed in.
            const client = new Client({ name: "hosted", version: "1.0.0" })
            yield* Effect.acquireRelease(
              Effect.promise(() =>
                client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }))
              ),
              () => Effect.promise(() => client.close())
            )
            const { tools } = yield* Effect.promise(() => client.listTools())
            expect(tools.map((t) => t.name)).toContain("transcribe_video")
            const credits = yield* Effect.promise(() =>
              client.callTool({ name: "get_credits", arguments: {} })
            )
            expect(credits.structuredContent).toMatchObject({ credits: 77, plan: "business" })

            // Refresh: new tokens, the refresh token rotated; the new access token works.
            const refreshed = yield* Effect.promise(() => auth(provider, { serverUrl }))
            expect(refreshed).toBe("AUTHORIZED")
            const second = provider.saved as OAuthTokens
            expect(second.access_token).not.toBe(first.access_token)
            expect(second.refresh_token).not.toBe(first.refresh_token)
            const withToken = (token: string) =>
              server.post(mcpPath, {
                json: toolsList,
                headers: { ...mcpHeaders, authorization: `Bearer ${token}` }
              })
            expect((yield* withToken(second.access_token)).status).toBe(200)
            // The REST API takes API keys only (the GPT Actions document says so): not this token.
            const rest = yield* server.get("/api/v2/credits", { key: second.access_token })
            expect(rest.status).toBe(401)
            expect(rest.json).toMatchObject({ error: "invalid_api_key" })

            // Revocation: the token's whole sign-in ends; the MCP endpoint answers 401.
            const revoked = yield* Effect.promise(() =>
              fetch(`${base}/oauth/revoke`, {
                method: "POST",
                headers: { "content-type": "application/x-www-form-urlencoded" },
                body: new URLSearchParams({ token: second.access_token })
              })
            )
            expect(revoked.status).toBe(200)
            const refused = yield* withToken(second.access_token)
            expect(refused.status).toBe(401)
            expect(refused.json).toMatchObject({ error: "invalid_api_key" })
            expect(refused.headers.get("www-authenticate")).toContain("resource_metadata=")
            expect((yield* withToken(first.access_token)).status).toBe(401)
            const stale = yield* Effect.promise(() =>
              fetch(`${base}/oauth/token`, {
                method: "POST",
                headers: { "content-type": "application/x-www-form-urlencoded" },
                body: new URLSearchParams({
                  grant_type: "refresh_token",
                  refresh_token: second.refresh_token ?? "",
                  client_id: provider.client?.client_id ?? "",
                  client_secret: (provider.client as { client_secret?: string }).client_secret ?? ""
                })
              }).then(async (r) => ({ status: r.status, body: await r.json() }))
            )
            expect(stale).toMatchObject({ status: 400, body: { error: "invalid_grant" } })

            // API keys keep working on the MCP endpoint.
            expect((yield* withToken(key)).status).toBe(200)
          }),
        240_000
      )

      it.scoped("a refresh token used twice ends its sign-in; authorize refuses what it must", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const base = server.baseUrl
          const serverUrl = new URL(`${base}${mcpPath}`)
          const provider = new MemoryOAuthProvider(
            redirectUrl,
            {
              client_name: "Test Assistant",
              grant_types: ["authorization_code", "refresh_token"],
              response_types: ["code"],
              token_endpoint_auth_method: "client_secret_post"
            },
            "state-123"
          )
          yield* Effect.promise(() => auth(provider, { serverUrl }))
          const params = Object.fromEntries((provider.authorizationUrl as URL).searchParams)
          const { allowed } = yield* Effect.promise(() => consentWith(base, params, key))
          const code = new URL(allowed.headers.get("location") ?? "").searchParams.get("code") ?? ""
          yield* Effect.promise(() => auth(provider, { serverUrl, authorizationCode: code }))
          const first = provider.saved as OAuthTokens
          yield* Effect.promise(() => auth(provider, { serverUrl }))
          const second = provider.saved as OAuthTokens
          // The first refresh token again: refused, and the second one's sign-in is over too.
          provider.saved = first
          const replay = yield* Effect.promise(() =>
            auth(provider, { serverUrl }).then(
              (result) => result,
              (error: Error) => error.message
            )
          )
          // Refused (the SDK retries once, by then the whole grant is revoked).
          expect(replay).toMatch(/already used|revoked/)
          const after = yield* server.post(mcpPath, {
            json: toolsList,
            headers: { ...mcpHeaders, authorization: `Bearer ${second.access_token}` }
          })
          expect(after.status).toBe(401)

          // An unknown client, or a redirect URI it did not register: an error page, no redirect.
          const unknown = yield* server.get(
            `/oauth/authorize?${new URLSearchParams({ ...params, client_id: "00000000-0000-4000-8000-000000000000" })}`
          )
          expect(unknown.status).toBe(400)
          expect(unknown.text).toContain("not registered")
          const elsewhere = yield* server.get(
            `/oauth/authorize?${new URLSearchParams({ ...params, redirect_uri: "https://evil.example/cb" })}`
          )
          expect(elsewhere.status).toBe(400)
          // No PKCE: back to the client with the error.
          const { code_challenge: _, ...noPkce } = params
          const plain = yield* Effect.promise(() =>
            fetch(`${base}/oauth/authorize?${new URLSearchParams(noPkce)}`, { redirect: "manual" })
          )
          expect(plain.status).toBe(302)
          expect(new URL(plain.headers.get("location") ?? "").searchParams.get("error")).toBe(
            "invalid_request"
          )
          // Registration refuses a redirect URI over plain http elsewhere than on this machine.
          const refused = yield* server.post("/oauth/register", {
            json: { redirect_uris: ["http://evil.example/cb"] }
          })
          expect(refused.status).toBe(400)
          expect(refused.json).toMatchObject({ error: "invalid_redirect_uri" })
        })
      )

      it.effect("registration is bounded in size, scheme and rate per address (the error body beyond)", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          let addresses = 0
          // The test server's peer is loopback, so the last X-Forwarded-For address counts (as behind deploy/'s proxy).
          const register = (json: unknown, from = `203.0.113.${++addresses}`) =>
            server.post("/oauth/register", { json, headers: { "x-forwarded-for": `198.18.0.1, ${from}` } })
          const refusedWith = (response: TestResponse, error: string, field: string) => {
            expect(response.status).toBe(400)
            expect(response.json).toMatchObject({
              error,
              error_description: expect.any(String),
              message: expect.any(String),
              details: { field }
            })
          }
          const uri = (n: number) => `https://assistant.example/cb/${n}`
          expect((yield* register({ redirect_uris: [1, 2, 3, 4, 5].map(uri) })).status).toBe(201)
          refusedWith(
            yield* register({ redirect_uris: [1, 2, 3, 4, 5, 6].map(uri) }),
            "invalid_redirect_uri",
            "redirect_uris"
          )
          const long = `https://assistant.example/${"a".repeat(512 - 26)}`
          expect(long).toHaveLength(512)
          expect((yield* register({ redirect_uris: [long] })).status).toBe(201)
          refusedWith(
            yield* register({ redirect_uris: [`${long}a`] }),
            "invalid_redirect_uri",
            "redirect_uris"
          )
          expect((yield* register({ redirect_uris: [uri(1)], client_name: "n".repeat(100) })).status).toBe(
            201
          )
          refusedWith(
            yield* register({ redirect_uris: [uri(1)], client_name: "n".repeat(101) }),
            "invalid_client_metadata",
            "client_name"
          )
          const huge = yield* server.post("/oauth/register", {
            raw: JSON.stringify({ redirect_uris: [uri(1)], padding: "x".repeat(20_000) }),
            headers: { "x-forwarded-for": "203.0.113.250" }
          })
          expect(huge.status).toBe(413)
          expect(huge.json).toMatchObject({
            error: "request_too_large",
            error_description: expect.any(String),
            details: { max_body_bytes: 16384 }
          })

          // https, http on this machine and apps' own schemes; nothing a browser handles itself.
          for (const accepted of [
            "https://claude.ai/api/mcp/auth_callback",
            "http://127.0.0.1:33418/",
            "http://localhost:6274/oauth/callback",
            "http://[::1]:8080/cb",
            "vscode://vscode.github-authentication/did-authenticate",
            "cursor://anysphere.cursor-retrieval/oauth/callback",
            "com.example.app:/oauth2redirect"
          ]) {
            expect((yield* register({ redirect_uris: [accepted] })).status, accepted).toBe(201)
          }
          for (const refused of [
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "view-source:https://assistant.example/cb",
            "about:blank",
            "file:///etc/passwd",
            "blob:https://assistant.example/0b5e",
            "http://evil.example/cb",
            "ws://127.0.0.1:9/cb",
            "https://assistant.example/cb#fragment",
            "/relative/cb"
          ]) {
            refusedWith(
              yield* register({ redirect_uris: [refused] }),
              "invalid_redirect_uri",
              "redirect_uris"
            )
          }

          // Per address: a burst of 10, then 429 with Retry-After; another address is not held back.
          const from = "192.0.2.77"
          for (let i = 0; i < 10; i++)
            expect((yield* register({ redirect_uris: [uri(i)] }, from)).status).toBe(201)
          const limited = yield* register({ redirect_uris: [uri(11)] }, from)
          expect(limited.status).toBe(429)
          expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
          expect(limited.json).toMatchObject({ error: "rate_limit_exceeded", message: expect.any(String) })
          expect((yield* register({ redirect_uris: [uri(12)] }, "192.0.2.78")).status).toBe(201)
        })
      )

      it.effect("authorization errors redirect, with iss, only to a client's checked redirect URI", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const base = server.baseUrl
          const { key } = yield* server.newAccount()
          const redirect = "https://assistant.example/cb"
          const registered = yield* server.post("/oauth/register", {
            json: { redirect_uris: [redirect], token_endpoint_auth_method: "none" },
            headers: { "x-forwarded-for": "192.0.2.90" }
          })
          const clientId = (registered.json as { client_id: string }).client_id
          const params = {
            response_type: "token",
            client_id: clientId,
            redirect_uri: redirect,
            code_challenge: "c".repeat(43),
            code_challenge_method: "S256",
            state: "st"
          }
          const authorize = (query: Record<string, string>) =>
            Effect.promise(async () => {
              const answer = await fetch(`${base}/oauth/authorize?${new URLSearchParams(query)}`, {
                redirect: "manual"
              })
              return {
                status: answer.status,
                location: answer.headers.get("location"),
                text: await answer.text()
              }
            })
          const back = yield* authorize(params)
          expect(back.status).toBe(302)
          const location = new URL(back.location ?? "")
          expect(location.origin + location.pathname).toBe(redirect)
          expect(Object.fromEntries(location.searchParams)).toMatchObject({
            error: "unsupported_response_type",
            state: "st",
            iss: base
          })
          // Without redirect_uri, the one URI the client registered is the checked one.
          const { redirect_uri: _, ...implicit } = params
          const implicitBack = yield* authorize(implicit)
          expect(new URL(implicitBack.location ?? "").searchParams.get("iss")).toBe(base)

          // An unknown client, or a URI the client did not register exactly: the page says so, no redirect.
          for (const query of [
            { ...params, client_id: "00000000-0000-4000-8000-000000000000" },
            { ...params, client_id: "not-a-client" },
            { ...params, redirect_uri: "https://evil.example/cb" },
            { ...params, redirect_uri: `${redirect}/` },
            { ...params, redirect_uri: `${redirect}?next=https://evil.example` }
          ]) {
            const page = yield* authorize(query)
            expect(page.status).toBe(400)
            expect(page.location).toBeNull()
            expect(page.text).toContain("This sign-in cannot go on")
          }

          // Deny after signing in: back to the client with access_denied and iss; the sign-in is spent.
          const valid = { ...params, response_type: "code" }
          const signedIn = yield* Effect.promise(async () => {
            const page = await postConsent(base, { ...valid, action: "sign_in", api_key: key })
            return /name="sign_in" value="([^"]+)"/.exec(await page.text())?.[1] ?? ""
          })
          const denied = yield* Effect.promise(() =>
            postConsent(base, { ...valid, action: "deny", sign_in: signedIn })
          )
          expect(denied.status).toBe(302)
          expect(
            Object.fromEntries(new URL(denied.headers.get("location") ?? "").searchParams)
          ).toMatchObject({
            error: "access_denied",
            state: "st",
            iss: base
          })
          const afterDeny = yield* Effect.promise(() =>
            postConsent(base, { ...valid, action: "allow", sign_in: signedIn })
          )
          expect(afterDeny.status).toBe(401)
        })
      )
    })
  }
)

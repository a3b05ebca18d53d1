/**
 * `verbatim-admin oauth list|revoke`: a hosted assistant's sign-in (registered, allowed on the
 * consent page, code exchanged with PKCE) is listed, and revoking it ends its access token at once.
 * `verbatim-admin keys revoke` of the key that signed in ends the sign-in too, on every server.
 */
import { createHash, randomBytes } from "node:crypto"
import { NodeContext } from "@effect/platform-node"
import { afterEach, beforeEach, expect, layer, vi } from "@effect/vitest"
import { mcpPath } from "@verbatim/api"
import { AccountAdmin, OAuthStore } from "@verbatim/core"
import { Effect, Layer } from "effect"
import { runAdmin } from "../src/admin/commands.js"
import { TestServer, TestServerLive, type TestServerService } from "./server.js"
import { consentWith } from "./support.js"

let printed: Array<string> = []
beforeEach(() => {
  printed = []
  vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
    printed.push(args.map(String).join(" "))
  })
})
afterEach(() => {
  vi.restoreAllMocks()
})

const admin = (...args: Array<string>) =>
  Effect.gen(function* () {
    const accounts = yield* AccountAdmin
    const store = yield* OAuthStore
    printed = []
    yield* runAdmin(
      Layer.succeed(AccountAdmin, accounts),
      Layer.succeed(OAuthStore, store)
    )(["node", "verbatim-admin", ...args]).pipe(Effect.provide(NodeContext.layer))
    return printed.join("\n")
  })

const redirect = "http://localhost:8976/callback"

/**
 * A public client registered on `server`, signed in on its consent page with `key` and its code
 * exchanged: the client id and the tokens.
 */
const signedInAssistant = (server: TestServerService, key: string) =>
  Effect.gen(function* () {
    const base = server.baseUrl
    const registered = yield* server.post("/oauth/register", {
      json: { client_name: "Admin Test", redirect_uris: [redirect], token_endpoint_auth_method: "none" }
    })
    expect(registered.status).toBe(201)
    const client = registered.json as { client_id: string; client_secret?: string }
    expect(client.client_secret).toBeUndefined()
    const verifier = randomBytes(32).toString("base64url")
    const params = {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: redirect,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state: "s"
    }
    const tokens = yield* Effect.promise(async () => {
      const { allowed } = await consentWith(base, params, key)
      const code = new URL(allowed.headers.get("location") ?? "").searchParams.get("code") ?? ""
      const answer = await postForm(`${base}/oauth/token`, {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: redirect,
        client_id: client.client_id
      })
      return (await answer.json()) as { access_token: string; refresh_token: string }
    })
    return { clientId: client.client_id, tokens }
  })

const postForm = (url: string, fields: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields)
  })

/** tools/list on `server`'s MCP endpoint with the access token: its status. */
const toolsWith = (server: TestServerService, accessToken: string) =>
  Effect.map(
    server.post(mcpPath, {
      json: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
      headers: { accept: "application/json, text/event-stream", authorization: `Bearer ${accessToken}` }
    }),
    (response) => response.status
  )

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })("verbatim-admin oauth", (it) => {
  it.effect("lists a sign-in and revokes it: its access token stops working", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { account, key } = yield* server.newAccount()
      const { clientId, tokens } = yield* signedInAssistant(server, key)
      const client = { client_id: clientId }
      const tools = () => Effect.map(toolsWith(server, tokens.access_token), (status) => ({ status }))
      expect((yield* tools()).status).toBe(200)

      const listed = JSON.parse(yield* admin("oauth", "list", "--account", account.id, "--json")) as Array<{
        id: string
        client_name: string
        revoked_at: string | null
      }>
      expect(listed).toHaveLength(1)
      expect(listed[0]).toMatchObject({ client_name: "Admin Test", revoked_at: null })
      const grant = listed[0]?.id ?? ""
      expect(yield* admin("oauth", "list")).toContain(`${grant}  account ${account.id}`)

      expect(yield* admin("oauth", "revoke", grant)).toBe(
        `Revoked sign-in ${grant}: its access and refresh tokens no longer work`
      )
      expect((yield* tools()).status).toBe(401)
      expect(yield* admin("oauth", "revoke", grant)).toBe(`No active sign-in ${grant}`)
      expect(yield* admin("oauth", "list", "--account", account.id)).toBe("No sign-ins.")
      expect(
        JSON.parse(yield* admin("oauth", "list", "--account", account.id, "--all", "--json"))
      ).toHaveLength(1)
      expect(yield* admin("oauth", "revoke", "--client", client.client_id)).toBe(
        `Revoked 0 sign-ins of client ${client.client_id}`
      )
    })
  )

  it.effect(
    "keys revoke of the key that signed in: its access token answers 401 and the refresh grant is refused",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { account, key } = yield* server.newAccount()
        const { clientId, tokens } = yield* signedInAssistant(server, key)
        expect(yield* toolsWith(server, tokens.access_token)).toBe(200)
        const keys = JSON.parse(yield* admin("keys", "list", "--account", account.id, "--json")) as Array<{
          id: string
        }>
        expect(keys).toHaveLength(1)

        yield* admin("keys", "revoke", keys[0]?.id ?? "")
        expect(yield* toolsWith(server, tokens.access_token)).toBe(401)
        const refreshed = yield* Effect.promise(async () => {
          const answer = await postForm(`${server.baseUrl}/oauth/token`, {
            grant_type: "refresh_token",
            refresh_token: tokens.refresh_token,
            client_id: clientId
          })
          return { status: answer.status, body: await answer.json() }
        })
        expect(refreshed).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
        // The sign-in shows as ended in the admin's listing.
        expect(yield* admin("oauth", "list", "--account", account.id)).toBe("No sign-ins.")
      })
  )
})

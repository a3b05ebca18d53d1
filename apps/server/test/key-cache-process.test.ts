/**
 * The key cache across processes (PostgreSQL): two servers on one database each keep the account of
 * a key they have seen; a change made elsewhere (here plain SQL from the test, as an admin command
 * or a third server would) applies on both as soon as its notification reaches them: a plan changed
 * shows in RateLimit-Limit, a key revoked and an account deleted answer 401 invalid_api_key. A
 * hosted assistant signed in with the key (OAuth, on the first server) loses its access token on
 * both servers and its refresh grant the moment the key is revoked, and gets neither back when the
 * key is restored by hand.
 *
 * NOTIFY is delivered after the commit, so the test asks again until the answer changes (on a busy
 * machine the notification can trail the writer's own answer by a few milliseconds), but only for
 * half of `keyCacheTtl`: an answer that changed only because the kept account expired fails it.
 */
import { createHash, randomBytes } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { mcpPath } from "@verbatim/api"
import { keyCacheTtl } from "@verbatim/core"
import { makeTestSchemaName, postgresLayer, withSearchPath } from "@verbatim/db"
import { Plan } from "@verbatim/domain"
import { Duration, Effect, Redacted } from "effect"
import { freePort, listeningUrl, printedKey, type ServerProcess, startServer } from "./server-process.js"
import { consentWith } from "./support.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""

const stop = async (server: ServerProcess) => {
  server.child.kill("SIGTERM")
  await server.exited
}

const form = (url: string, fields: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields)
  })

/** A public client registered on `base` and signed in there with `key`: its id and tokens. */
const signInAssistant = async (base: string, key: string) => {
  const redirect = "http://127.0.0.1:8976/callback"
  const registered = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [redirect], token_endpoint_auth_method: "none" })
  })
  const { client_id } = (await registered.json()) as { client_id: string }
  const verifier = randomBytes(32).toString("base64url")
  const params = {
    response_type: "code",
    client_id,
    redirect_uri: redirect,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256"
  }
  const { allowed } = await consentWith(base, params, key)
  const code = new URL(allowed.headers.get("location") ?? "").searchParams.get("code") ?? ""
  const tokens = await form(`${base}/oauth/token`, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: redirect,
    client_id
  })
  return { client_id, ...((await tokens.json()) as { access_token: string; refresh_token: string }) }
}

/** The refresh grant of the assistant on `base`: its status and error code. */
const refresh = async (base: string, assistant: { client_id: string; refresh_token: string }) => {
  const answer = await form(`${base}/oauth/token`, {
    grant_type: "refresh_token",
    refresh_token: assistant.refresh_token,
    client_id: assistant.client_id
  })
  return { status: answer.status, error: ((await answer.json()) as { error?: string }).error }
}

describe.runIf(databaseUrl !== "")("the key cache across server processes", () => {
  it("a plan change, a revoked key (and its OAuth sign-ins) and a deleted account apply on every server once reported", async () => {
    const schema = await Effect.runPromise(makeTestSchemaName)
    const url = withSearchPath(Redacted.make(databaseUrl), schema)
    const admin = postgresLayer(Redacted.make(databaseUrl), { maxConnections: 1 })
    const inSchema = postgresLayer(url, { maxConnections: 1 })
    const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>, layer = inSchema) =>
      Effect.runPromise(Effect.scoped(Effect.provide(effect, layer)))
    await run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`),
      admin
    )
    const env = { DATABASE_URL: Redacted.value(url) }
    const first = startServer({ ...env, PORT: String(await freePort()) })
    const servers = [first]
    try {
      const key = printedKey(await first.waitFor(/vbt_[A-Za-z0-9_-]{20,}/, 90_000)) ?? ""
      expect(key).not.toBe("")
      servers.push(startServer({ ...env, PORT: String(await freePort()), VERBATIM_SEED: "false" }))
      const bases = await Promise.all(
        servers.map(async (server) => listeningUrl(await server.waitFor(/Listening on http/, 90_000)))
      )
      const credits = (base: string) =>
        fetch(`${base}/api/v2/credits`, { headers: { authorization: `Bearer ${key}` } })
      const statuses = async () => Promise.all(bases.map(async (base) => (await credits(base)).status))
      const limits = async () =>
        Promise.all(bases.map(async (base) => (await credits(base)).headers.get("ratelimit-limit")))
      /** The answers once every server gives `expected`, or the last ones after half the TTL. */
      const settled = async <A>(answers: () => Promise<ReadonlyArray<A>>, expected: ReadonlyArray<A>) => {
        const until = Date.now() + Duration.toMillis(keyCacheTtl) / 2
        let last = await answers()
        while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 10))
          last = await answers()
        }
        return last
      }

      // A hosted assistant signs in with the key on the first server.
      const assistant = await signInAssistant(bases[0] ?? "", key)
      const mcp = (base: string) =>
        fetch(`${base}${mcpPath}`, {
          method: "POST",
          headers: {
            accept: "application/json, text/event-stream",
            "content-type": "application/json",
            authorization: `Bearer ${assistant.access_token}`
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
        })
      const oauthStatuses = async () => Promise.all(bases.map(async (base) => (await mcp(base)).status))
      expect(await oauthStatuses()).toEqual([200, 200])

      // Seen twice by each server: kept from then on.
      expect(await statuses()).toEqual([200, 200])
      expect(await limits()).toEqual(bases.map(() => String(Plan.limitsFor("pro").burst)))

      await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE accounts SET plan = 'business'`))
      const business = bases.map(() => String(Plan.limitsFor("business").burst))
      expect(await settled(limits, business)).toEqual(business)

      await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE api_keys SET revoked_at = now()`))
      expect(await settled(statuses, [401, 401])).toEqual([401, 401])
      // The assistant's sign-in ended with the key, on both servers, without waiting for anything.
      expect(await oauthStatuses()).toEqual([401, 401])
      expect(await refresh(bases[1] ?? "", assistant)).toMatchObject({ status: 400, error: "invalid_grant" })

      await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE api_keys SET revoked_at = NULL`))
      expect(await settled(statuses, [200, 200])).toEqual([200, 200])
      expect(await statuses()).toEqual([200, 200])
      expect(await oauthStatuses()).toEqual([401, 401])
      expect(await refresh(bases[0] ?? "", assistant)).toMatchObject({ status: 400, error: "invalid_grant" })
      await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM accounts`))
      expect(await settled(statuses, [401, 401])).toEqual([401, 401])
    } finally {
      await Promise.all(servers.map(stop))
      await run(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`),
        admin
      )
    }
  }, 180_000)
})

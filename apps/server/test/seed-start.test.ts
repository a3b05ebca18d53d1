/**
 * The first start on PostgreSQL is the embedded one's (`DATABASE_URL` only): on an empty database
 * `pnpm start` creates the development account and prints its key once, even when two servers start
 * together; with VERBATIM_SEED=false it prints the commands that make an account and a key.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { makeTestSchemaName, postgresLayer, withSearchPath } from "@verbatim/db"
import { Effect, Redacted } from "effect"
import { freePort, listeningUrl, printedKey, type ServerProcess, startServer } from "./server-process.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""

/** A fresh empty schema, and a DATABASE_URL whose connections use only it. */
const emptyDatabase = async (): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const admin = postgresLayer(Redacted.make(databaseUrl), { maxConnections: 1 })
  const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
    Effect.runPromise(Effect.provide(effect, admin))
  const schema = await Effect.runPromise(makeTestSchemaName)
  await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`))
  return {
    url: Redacted.value(withSearchPath(Redacted.make(databaseUrl), schema)),
    drop: () =>
      run(
        Effect.asVoid(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`))
      )
  }
}

const stop = async (server: ServerProcess) => {
  server.child.kill("SIGTERM")
  await server.exited
}

describe.runIf(databaseUrl !== "")("the first start on PostgreSQL", () => {
  it("seeds the empty database once and prints the key once, when two servers start together", async () => {
    const database = await emptyDatabase()
    // As on a terminal (the readable report, with its curl example); JSON lines: log-lines.test.ts.
    const servers = [
      startServer({
        DATABASE_URL: database.url,
        PORT: String(await freePort()),
        VERBATIM_LOG_FORMAT: "pretty"
      }),
      startServer({
        DATABASE_URL: database.url,
        PORT: String(await freePort()),
        VERBATIM_LOG_FORMAT: "pretty"
      })
    ]
    try {
      const outputs = await Promise.all(
        servers.map((server) =>
          server.waitFor(/Seeded a development account|Development account \S+ exists/, 90_000)
        )
      )
      const keys = outputs.map(printedKey).filter((key) => key !== undefined)
      expect(keys, outputs.join("\n----\n")).toHaveLength(1)
      const key = keys[0] as string
      const urls: Array<string> = []
      for (const server of servers) {
        urls.push(listeningUrl(await server.waitFor(/Listening on http/, 90_000)))
        const response = await fetch(`${urls.at(-1)}/api/v2/credits`, {
          headers: { authorization: `Bearer ${key}` }
        })
        expect(response.status).toBe(200)
        expect(await response.json()).toMatchObject({ credits: 1000, plan: "pro" })
      }
      // The MCP SDK is loaded at the first MCP request (a chunk of the bundle): it answers then.
      const mcp = await fetch(`${urls[0]}/api/v2/gpt/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          accept: "application/json, text/event-stream",
          "content-type": "application/json"
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
      })
      expect(mcp.status).toBe(200)
      const listed = (await mcp.json()) as { result: { tools: Array<{ name: string }> } }
      expect(listed.result.tools.map((tool) => tool.name)).toContain("transcribe_video")
      const seeded = outputs.find((output) => printedKey(output) !== undefined) ?? ""
      expect(seeded).toContain(`curl -H "Authorization: Bearer ${key}"`)
      const other = outputs.find((output) => printedKey(output) === undefined) ?? ""
      expect(other).toMatch(/Development account \S+ exists; its key is not shown again/)
    } finally {
      await Promise.all(servers.map(stop))
      await database.drop()
    }
  }, 180_000)

  it("with VERBATIM_SEED=false, an empty database gets the commands to run", async () => {
    const database = await emptyDatabase()
    const server = startServer({
      DATABASE_URL: database.url,
      PORT: String(await freePort()),
      VERBATIM_SEED: "false"
    })
    try {
      const output = await server.waitFor(/pnpm admin keys issue/, 90_000)
      expect(output).toContain("The database holds no account yet (VERBATIM_SEED=false)")
      expect(output).toMatch(/pnpm admin accounts create --name ["']Me["'] --plan pro --credits 1000/)
      expect(printedKey(output)).toBeUndefined()
    } finally {
      await stop(server)
      await database.drop()
    }
  }, 120_000)
})

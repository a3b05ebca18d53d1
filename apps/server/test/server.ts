/**
 * A real Verbatim server for black-box tests: the production wiring (`HttpLive`, every use case,
 * the repositories, the in-memory queue and rate limiter, the embedded worker, node's crypto, the
 * shipped demo catalogue) on a fresh test database (in-memory PGlite, or a throw-away PostgreSQL schema when DATABASE_URL is
 * set), listening on a free port of 127.0.0.1. Requests go over real HTTP with `fetch`.
 *
 *   layer(TestServerLive)("my suite", (it) => {
 *     it.effect("...", () => Effect.gen(function* () {
 *       const server = yield* TestServer
 *       const { key } = yield* server.newAccount({ plan: "free", credits: 5 })
 *       const response = yield* server.get("/api/v2/credits", { key })
 *       expect(response.status).toBe(200)
 *     }))
 *   })
 */

import { FetchHttpClient, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { McpAllowedOrigins, McpHttpLive } from "@verbatim/api"
import { makeClient, type VerbatimClient } from "@verbatim/contract"
import { type Account, AccountAdmin, type NewAccountInput } from "@verbatim/core"
import { DatabaseConfig, withSearchPath } from "@verbatim/db"
import { type Infrastructure, runWorker, servicesOn } from "@verbatim/runtime"
import {
  type TestInfrastructureOptions,
  testInfrastructure,
  testWorkerOn,
  testWorkSettings
} from "@verbatim/runtime/testing"
import { Context, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { apiWithWeb } from "../src/layers.js"
import { makeNodeServer } from "../src/node-server.js"

export interface TestResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON (`undefined` when it is not JSON). */
  readonly json: unknown
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer <key>`. */
  readonly key?: string | undefined
  /** Sent as JSON. */
  readonly json?: unknown
  /** Sent as it is (for malformed bodies); `Content-Type: application/json` unless headers say otherwise. */
  readonly raw?: string | Uint8Array | undefined
  readonly headers?: Record<string, string> | undefined
  /** `manual`: a redirect is answered as it is, not followed (the default follows it). */
  readonly redirect?: "manual" | undefined
}

export interface NewTestAccount extends Partial<NewAccountInput> {}

export interface TestServerService {
  /** `http://127.0.0.1:<port>`; API paths start with `/api/v2`. */
  readonly baseUrl: string
  /**
   * On PostgreSQL, a DATABASE_URL another process (a worker, the stdio MCP command) can use to
   * reach this server's test database (its schema as the search path); none on PGlite.
   */
  readonly databaseUrl: Option.Option<string>
  readonly request: (method: string, path: string, options?: RequestOptions) => Effect.Effect<TestResponse>
  readonly get: (path: string, options?: RequestOptions) => Effect.Effect<TestResponse>
  readonly post: (path: string, options?: RequestOptions) => Effect.Effect<TestResponse>
  readonly del: (path: string, options?: RequestOptions) => Effect.Effect<TestResponse>
  /** Creates an account (defaults: a unique name, pro plan, 100 credits) through `AccountAdmin`. */
  readonly createAccount: (input?: NewTestAccount) => Effect.Effect<Account>
  /** Issues a key for an account; the key itself. */
  readonly issueKey: (account: Account | Account["id"]) => Effect.Effect<string>
  /** An account and a key of it. */
  readonly newAccount: (
    input?: NewTestAccount
  ) => Effect.Effect<{ readonly account: Account; readonly key: string }>
  /** The typed client of `@verbatim/contract` against this server. */
  readonly client: (key?: string) => Effect.Effect<VerbatimClient>
}

export class TestServer extends Context.Tag("@verbatim/server/test/TestServer")<
  TestServer,
  TestServerService
>() {}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Sends requests to a server at `baseUrl` over real HTTP, as `TestServer.request` does. */
export const requestTo =
  (baseUrl: string) =>
  (method: string, path: string, options: RequestOptions = {}): Effect.Effect<TestResponse> =>
    Effect.promise(async (): Promise<TestResponse> => {
      const headers: Record<string, string> = {}
      if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
      const body = options.json !== undefined ? JSON.stringify(options.json) : options.raw
      if (body !== undefined) headers["content-type"] = "application/json"
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { ...headers, ...options.headers },
        ...(options.redirect === undefined ? {} : { redirect: options.redirect }),
        ...(body === undefined ? {} : { body })
      })
      const text = await response.text()
      return { status: response.status, headers: response.headers, text, json: parseJson(text) }
    })

let accounts = 0

const make = Effect.gen(function* () {
  const server = yield* HttpServer.HttpServer
  const admin = yield* AccountAdmin
  const sql = yield* SqlClient.SqlClient
  const configured = yield* Effect.orDie(DatabaseConfig)
  const databaseUrl = yield* Option.match(configured.url, {
    onNone: () => Effect.succeed(Option.none<string>()),
    onSome: (url) =>
      sql<{ readonly schema: string }>`SELECT current_schema() AS schema`.pipe(
        Effect.map(([row]) => Option.some(Redacted.value(withSearchPath(url, row?.schema ?? "public")))),
        Effect.orDie
      )
  })
  const address = server.address
  const baseUrl =
    address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : `http://unix:${address.path}`

  const request = requestTo(baseUrl)

  const createAccount = (input: NewTestAccount = {}) =>
    admin
      .createAccount({
        name: input.name ?? `test account ${++accounts}`,
        plan: input.plan ?? "pro",
        credits: input.credits ?? 100,
        createdAt: input.createdAt,
        defaultMode: input.defaultMode
      })
      .pipe(Effect.orDie)

  const issueKey = (account: Account | Account["id"]) =>
    admin.issueKey(typeof account === "string" ? account : account.id).pipe(
      Effect.map((issued) => issued.key),
      Effect.orDie
    )

  return TestServer.of({
    baseUrl,
    databaseUrl,
    request,
    get: (path, options) => request("GET", path, options),
    post: (path, options) => request("POST", path, options),
    del: (path, options) => request("DELETE", path, options),
    createAccount,
    issueKey,
    newAccount: (input) =>
      Effect.gen(function* () {
        const account = yield* createAccount(input)
        return { account, key: yield* issueKey(account) }
      }),
    client: (key) => makeClient({ baseUrl, apiKey: key }).pipe(Effect.provide(FetchHttpClient.layer))
  })
})

export interface TestServerOptions extends TestInfrastructureOptions {
  /** VERBATIM_MCP_ALLOWED_ORIGINS of this server (none by default). */
  readonly mcpAllowedOrigins?: ReadonlyArray<string> | undefined
  /** Whether the web library is served at `/` too (VERBATIM_WEB; off by default here). */
  readonly web?: boolean | undefined
  /**
   * Replaces the test infrastructure (e.g. a database reached through a proxy that a fault test
   * can freeze); given the server's own address, where signed upload URLs point.
   */
  readonly infrastructure?:
    | ((publicUrl: string | undefined) => Layer.Layer<Infrastructure, unknown>)
    | undefined
}

/**
 * The use cases of the production wiring on the test infrastructure (a fresh test database, the
 * shipped catalogue, the in-memory queue), with the embedded worker running, as `pnpm start` does.
 */
export const testUseCasesOn = (options: TestServerOptions = {}) =>
  Layer.scopedDiscard(runWorker).pipe(
    Layer.provide(testWorkerOn(testWorkSettings())),
    Layer.provideMerge(
      servicesOn(
        options.infrastructure === undefined
          ? testInfrastructure(options)
          : options.infrastructure(options.publicUrl)
      )
    )
  )

export const TestUseCasesLive = testUseCasesOn()

/**
 * The server and the `TestServer` helper; the use cases are provided too (to arrange data the API
 * cannot, e.g. with `AccountAdmin`). Request logs are silenced; warnings and errors still show.
 */
export const testServerOn = (options: TestServerOptions = {}) =>
  Layer.effect(TestServer, make).pipe(
    // The API and the MCP server over Streamable HTTP at /api/v2/gpt/mcp, as `pnpm start` serves them.
    Layer.provideMerge(
      apiWithWeb(options.web === true).pipe(
        Layer.provide(
          McpHttpLive.pipe(Layer.provide(Layer.succeed(McpAllowedOrigins, options.mcpAllowedOrigins ?? [])))
        )
      )
    ),
    // Signed upload URLs point at this server, whose port is known once it listens.
    Layer.provideMerge(
      Layer.unwrapEffect(
        Effect.map(HttpServer.HttpServer, (server) =>
          testUseCasesOn({
            ...options,
            publicUrl:
              server.address._tag === "TcpAddress" ? `http://127.0.0.1:${server.address.port}` : undefined
          })
        )
      )
    ),
    Layer.provideMerge(NodeHttpServer.layer(makeNodeServer, { port: 0, host: "127.0.0.1" })),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
  )

export const TestServerLive = testServerOn()

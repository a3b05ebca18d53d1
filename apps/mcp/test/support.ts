/**
 * What the MCP suites share: a demo catalogue with one long video, MCP clients of the SDK on each
 * transport (Streamable HTTP to the test server, stdio spawning `pnpm --silent mcp` against it, and
 * the in-process or REST operations over an in-memory pair), and a tool call that checks the
 * structured output against the tool's output schema.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { FetchHttpClient } from "@effect/platform"
import { expect } from "@effect/vitest"
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens
} from "@modelcontextprotocol/sdk/shared/auth.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { mcpPath } from "@verbatim/api"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import {
  AccountOperations,
  inProcessByKey,
  makeServer,
  type Operations,
  overHttp,
  tools as toolDefinitions
} from "@verbatim/mcp-tools"
import { Effect, Redacted } from "effect"
import type { TestServerService } from "../../server/test/server.js"
import { oldAccount } from "../../server/test/support.js"

export const root = join(dirname(fileURLToPath(import.meta.url)), "../../..")

/** The long demo video: 30 minutes of captions, about 1,100 segments and one of 5,000 characters. */
export const longVideo = "Lg7TrNs9XcQ"

/** The shipped catalogue plus `longVideo`, written to a temporary file. */
export const catalogueWithLongVideo = (): string => {
  const catalogue = JSON.parse(readFileSync(shippedCataloguePath, "utf8")) as {
    videos: Array<{ [key: string]: unknown }>
  }
  const segments = Array.from({ length: 1_100 }, (_, i) => ({
    text:
      i === 500
        ? `A very long passage without a pause, ${"and then the speaker went on and on ".repeat(140)}until the end.`
        : `Line ${i + 1} of the long lecture, on graphs, queues and the order of visits.`,
    start: i * 1_600,
    end: i * 1_600 + 1_500
  }))
  const channel = catalogue.videos[0]?.channel_id
  catalogue.videos = [
    // Media paths are relative to the catalogue file: the copy leaves the media out.
    ...catalogue.videos.map(({ media: _media, ...video }) => video),
    {
      id: longVideo,
      title: "A Long Lecture on Graphs",
      duration_seconds: 1_800,
      channel_id: channel,
      published_at: "2024-03-01T10:00:00Z",
      original_language: "en",
      caption_tracks: [{ language: "en", kind: "manual", name: "English", segments }],
      translation_languages: ["de"]
    }
  ]
  const file = join(mkdtempSync(join(tmpdir(), "verbatim-mcp-catalogue-")), "catalogue.json")
  writeFileSync(file, JSON.stringify(catalogue))
  return file
}

const clientInfo = { name: "verbatim-test", version: "1.0.0" }

/** Connects an SDK client on a transport (closed with the scope) and lists its tools once. */
export const connected = (transport: Transport) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client(clientInfo)
      await client.connect(transport)
      const { tools } = await client.listTools()
      return { client, tools }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )

/** A client over Streamable HTTP at the server's MCP path, sending the key as a Bearer token. */
/**
 * A fetch that waits out a 429 (its Retry-After, at most 5 times), as a client pacing itself to its
 * plan's rate limit does: every JSON-RPC request counts, so a free account (1 a second) cannot even
 * connect and call at once.
 */
const patientFetch: typeof fetch = async (input, init) => {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(input, init)
    if (response.status !== 429 || attempt >= 5) return response
    const seconds = Number(response.headers.get("retry-after") ?? "1")
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  }
}

export const httpClient = (baseUrl: string, key: string, options: { readonly patient?: boolean } = {}) =>
  connected(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}${mcpPath}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      ...(options.patient === true ? { fetch: patientFetch } : {})
    })
  )

/**
 * A client of `pnpm --silent mcp` started with `env` over this process's environment, less the
 * settings that choose where the tools run (DATABASE_URL, REDIS_URL, VERBATIM_BASE_URL,
 * VERBATIM_API_KEY, PORT, HOST): only `env` chooses.
 */
export const stdioClientWith = (env: Record<string, string>) => {
  const {
    DATABASE_URL: _database,
    REDIS_URL: _redis,
    VERBATIM_BASE_URL: _base,
    VERBATIM_API_KEY: _key,
    PORT: _port,
    HOST: _host,
    ...inherited
  } = process.env as Record<string, string>
  return connected(
    new StdioClientTransport({
      command: "pnpm",
      args: ["--silent", "mcp"],
      cwd: root,
      env: { ...inherited, ...env },
      stderr: "pipe"
    })
  )
}

/** A client of `pnpm --silent mcp` started with the key and the server's URL. */
export const stdioClient = (baseUrl: string, key: string) =>
  stdioClientWith({ VERBATIM_API_KEY: key, VERBATIM_BASE_URL: baseUrl })

/** A client of an MCP server on `operations`, over an in-memory pair. */
const inMemoryClient = (operations: Operations) =>
  Effect.gen(function* () {
    const server = yield* makeServer.pipe(Effect.provideService(AccountOperations, operations))
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* Effect.acquireRelease(
      Effect.promise(() => server.connect(serverSide)),
      () => Effect.promise(() => server.close())
    )
    return yield* connected(clientSide)
  })

/** A client of the in-process operations (what `pnpm mcp` runs on PostgreSQL), over an in-memory pair. */
export const inProcessClient = (key: string) =>
  Effect.flatMap(inProcessByKey(Redacted.make(key)), inMemoryClient)

/** A client of the REST operations (what `pnpm mcp` runs with VERBATIM_BASE_URL), over an in-memory pair. */
export const restClient = (baseUrl: string, key: string) =>
  overHttp({ baseUrl, apiKey: Redacted.make(key) }).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.flatMap(inMemoryClient)
  )

export interface Connected {
  readonly client: Client
  readonly tools: ReadonlyArray<Tool>
}

export interface Called {
  readonly result: CallToolResult
  /** The structured content (checked against the output schema). */
  readonly structured: { readonly [key: string]: unknown }
}

const validator = new AjvJsonSchemaValidator()

/** Calls a tool that must succeed; its structured output is checked against its output schema. */
export const call = (connected: Connected, name: string, args: { readonly [key: string]: unknown } = {}) =>
  Effect.promise(async (): Promise<Called> => {
    const result = (await connected.client.callTool({ name, arguments: args })) as CallToolResult
    expect(result.isError ?? false, `${name} failed: ${JSON.stringify(result.content)}`).toBe(false)
    // The listing carries no output schemas (its size); the package's own schema of the tool.
    const tool = toolDefinitions.find((t) => t.name === name)
    expect(tool?.outputSchema, `${name} has an output schema`).toBeDefined()
    const check = validator.getValidator(tool?.outputSchema as never)(result.structuredContent)
    expect(check.valid, check.errorMessage).toBe(true)
    return { result, structured: result.structuredContent as Called["structured"] }
  })

/** Calls a tool that must fail; the API's error body it carries. */
export const callFailing = (
  connected: Connected,
  name: string,
  args: { readonly [key: string]: unknown } = {}
) =>
  Effect.promise(async () => {
    const result = (await connected.client.callTool({ name, arguments: args })) as CallToolResult
    expect(result.isError, `${name} should fail: ${JSON.stringify(result.structuredContent)}`).toBe(true)
    const first = result.content[0]
    expect(first?.type).toBe("text")
    return JSON.parse(first?.type === "text" ? first.text : "{}") as {
      readonly error: string
      readonly message: string
      readonly details: { readonly [key: string]: unknown }
    }
  })

/**
 * What a hosted assistant keeps in the OAuth tests: its registration, tokens and the PKCE verifier,
 * in memory, for the SDK's `auth()`; `state` is sent when given.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ""
  authorizationUrl: URL | undefined
  readonly clientMetadata: OAuthClientMetadata
  readonly state?: () => string
  constructor(
    readonly redirectUrl: string,
    metadata: Omit<OAuthClientMetadata, "redirect_uris">,
    state?: string
  ) {
    this.clientMetadata = { ...metadata, redirect_uris: [redirectUrl] }
    if (state !== undefined) this.state = () => state
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

/**
 * Runs `tour` once over each way a client reaches the tools (Streamable HTTP, the in-process
 * operations, the REST operations), each time for a fresh business account holding `credits`.
 */
export const onEveryTransport = <E, R>(
  server: TestServerService,
  credits: number,
  tour: (mcp: Connected, key: string) => Effect.Effect<void, E, R>
) =>
  Effect.gen(function* () {
    const clients = [
      (key: string) => httpClient(server.baseUrl, key),
      (key: string) => inProcessClient(key),
      (key: string) => restClient(server.baseUrl, key)
    ]
    for (const client of clients) {
      const { key } = yield* server.newAccount({ plan: "business", credits, createdAt: oldAccount })
      yield* tour(yield* client(key), key)
    }
  }).pipe(Effect.scoped)

/** Raw JSON-RPC messages and headers for tests that speak Streamable HTTP without the SDK client. */
export const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }
}
export const toolsList = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }
export const mcpHeaders = {
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
  "mcp-protocol-version": "2025-06-18"
}

/**
 * The shipped demo catalogue (media left out) with one more video: a three-hour talk with these
 * English captions, written to a fresh temporary file whose path is returned.
 */
export const catalogueWithThreeHours = (
  id: string,
  segments: ReadonlyArray<{ readonly text: string; readonly start: number; readonly end: number }>
): string => {
  const catalogue = JSON.parse(readFileSync(shippedCataloguePath, "utf8")) as {
    videos: Array<{ [key: string]: unknown }>
  }
  catalogue.videos = [
    ...catalogue.videos.map(({ media: _media, ...video }) => video),
    {
      id,
      title: "Three Hours on Graphs",
      duration_seconds: 10_800,
      channel_id: catalogue.videos[0]?.channel_id,
      published_at: "2024-03-01T10:00:00Z",
      original_language: "en",
      caption_tracks: [{ language: "en", kind: "manual", name: "English", segments }],
      translation_languages: []
    }
  ]
  const file = join(mkdtempSync(join(tmpdir(), "verbatim-three-hours-")), "catalogue.json")
  writeFileSync(file, JSON.stringify(catalogue))
  return file
}

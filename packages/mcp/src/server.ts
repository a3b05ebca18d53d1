/**
 * The MCP server of one account: an SDK `Server` (the low-level one, so the tools' JSON Schemas are
 * the ones derived from the domain's Effect Schemas) whose tools and resources run on the
 * `AccountOperations` it is built with. The SDK calls back with Promises; each callback runs its
 * Effect on the runtime captured here, interrupted when the client cancels the request. Tool
 * failures are tool results (`isError`); resource failures are JSON-RPC errors carrying the API's
 * error body as `data` (`not_found` and `forbidden` as -32002, resource not found).
 *
 * A JSON-RPC error's message is the message alone: the client's SDK shows it as
 * `MCP error <code>: <message>` itself. The SDK's `McpError` puts that prefix into its own message,
 * so an error thrown as one (ours before, the SDK's own checks still) would show it twice; ours are
 * `ProtocolError`s, and the server's transport takes the prefix off whatever the SDK throws.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  type JSONRPCMessage,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Errors } from "@verbatim/domain"
import { Cause, Effect, Exit, Option, Runtime } from "effect"
import type { AccountOperations } from "./operations.js"
import { listResources, readResource, templates } from "./resources.js"
import { tools } from "./tools/index.js"

/** The interface version of the Transcript Service API this server speaks. */
export const serverVersion = "2.1.0"

export const instructions = [
  "Verbatim transcribes YouTube videos and keeps the transcripts in the user's library, searchable.",
  "Typical use: transcribe_video, then get_transcript to read it (in chunks, with timestamps); search_transcripts or list_transcripts for what is already stored.",
  "Costs are in credits (get_credits): captions cost 1, reading and searching are free, speech recognition of videos without captions costs much more.",
  "Never confirm speech recognition (confirm_asr: true) without asking the user first, quoting the price transcribe_video or estimate_cost gave."
].join(" ")

const resourceNotFound = -32002

/**
 * A JSON-RPC error a handler answers: its code, its message as it is (no prefix: see above), and
 * its data. The SDK's server answers any rejection with these three fields.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown
  ) {
    super(message)
    this.name = "ProtocolError"
  }
}

/** The JSON-RPC error of an `ApiError`, its body as `data`. */
export const protocolError = (error: Errors.ApiError): ProtocolError =>
  new ProtocolError(
    error.code === "not_found" || error.code === "forbidden"
      ? resourceNotFound
      : error.code === "invalid_request"
        ? ErrorCode.InvalidParams
        : ErrorCode.InternalError,
    error.message,
    error.toBody()
  )

/** A JSON-RPC error message without the `MCP error <code>: ` that the SDK's `McpError` put in it. */
export const withoutSdkPrefix = (message: JSONRPCMessage): JSONRPCMessage => {
  if (!("error" in message)) return message
  const prefix = `MCP error ${message.error.code}: `
  return message.error.message.startsWith(prefix)
    ? { ...message, error: { ...message.error, message: message.error.message.slice(prefix.length) } }
    : message
}

/** The transport, its outgoing error messages without the SDK's prefix (`withoutSdkPrefix`). */
const unprefixed = (transport: Transport): Transport => {
  const send = transport.send.bind(transport)
  transport.send = (message, options) => send(withoutSdkPrefix(message), options)
  return transport
}

const byName = new Map(tools.map((tool) => [tool.name, tool]))

/** A new MCP server for the account of the `AccountOperations` in context. */
export const makeServer: Effect.Effect<Server, never, AccountOperations> = Effect.gen(function* () {
  const runtime = yield* Effect.runtime<AccountOperations>()

  /** Runs a callback's Effect: its value, or the JSON-RPC error of its failure. */
  const settle = <A>(
    effect: Effect.Effect<A, Errors.ApiError, AccountOperations>,
    signal: AbortSignal
  ): Promise<A> =>
    Runtime.runPromiseExit(runtime)(effect, { signal }).then((exit) => {
      if (Exit.isSuccess(exit)) return exit.value
      const failure = Cause.failureOption(exit.cause)
      if (Option.isNone(failure) && !Cause.isInterruptedOnly(exit.cause)) {
        Runtime.runSync(runtime)(Effect.logError("MCP request failed unexpectedly", exit.cause))
      }
      return Promise.reject(protocolError(Option.getOrElse(failure, () => Errors.apiError("internal_error"))))
    })

  const server = new Server(
    { name: "verbatim", title: "Verbatim", version: serverVersion },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions }
  )

  const connect = server.connect.bind(server)
  server.connect = (transport) => connect(unprefixed(transport))

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => tool.listing) }))

  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = byName.get(request.params.name)
    if (tool === undefined) {
      return Promise.reject(
        new ProtocolError(
          ErrorCode.InvalidParams,
          `unknown tool ${request.params.name}; the tools are ${tools.map((t) => t.name).join(", ")}`
        )
      )
    }
    return settle(tool.call(request.params.arguments), extra.signal)
  })

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => templates)

  server.setRequestHandler(ListResourcesRequestSchema, (request, extra) =>
    settle(listResources(request.params?.cursor).pipe(Effect.withSpan("mcp.resources.list")), extra.signal)
  )

  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    settle(readResource(request.params.uri).pipe(Effect.withSpan("mcp.resources.read")), extra.signal)
  )

  return server
})

/**
 * One MCP exchange over Streamable HTTP: a fresh SDK server and transport answering one Web
 * `Request`. `answerStreamable` (`streamable.ts`) loads this module (and with it the SDK's transport)
 * with `import()` at the first MCP request, so a server that is never asked over MCP does not hold it.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { Effect } from "effect"
import { makeServer } from "./server.js"

/** Answers one MCP POST with a fresh server and transport on `AccountOperations`. */
export const handle = (request: Request) =>
  Effect.acquireUseRelease(
    Effect.gen(function* () {
      const server = yield* makeServer
      // No session id generator: stateless.
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
      yield* Effect.promise(() => server.connect(transport))
      return { server, transport }
    }),
    ({ transport }) => Effect.promise(() => transport.handleRequest(request)),
    ({ server }) => Effect.promise(() => server.close())
  )

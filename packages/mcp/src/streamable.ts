/**
 * The tools served over Streamable HTTP, one Web `Request` at a time (stateless: a fresh SDK server
 * and transport per request, on the `AccountOperations` in context). The server's transport route
 * (`McpHttpLive` in `packages/api/src/mcp/`: authentication, rate limit, Origin) calls this; the SDK's
 * transport is loaded at the first MCP request (`session.ts`), not when the server starts.
 */
import { Effect } from "effect"

/** Answers one MCP POST with a fresh server and transport on the `AccountOperations` in context. */
export const answerStreamable = (request: Request) =>
  Effect.promise(() => import("./session.js")).pipe(Effect.flatMap((session) => session.handle(request)))

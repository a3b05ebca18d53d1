/**
 * A node server made by `makeNodeServer` with a plain app of a test's own, on a free port of
 * 127.0.0.1, for tests of what the node layer does before and after the app (limits, timeouts,
 * the linger, the connection budget); closed with its connections when the test's run ends.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { makeNodeServer, type NodeServerOptions } from "../src/node-server.js"

export const withNodeServer = async (
  options: NodeServerOptions,
  app: (request: IncomingMessage, response: ServerResponse) => void,
  run: (port: number, server: Server) => Promise<void>
): Promise<void> => {
  const server = makeNodeServer(options)
  server.on("request", app)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    const address = server.address()
    await run(typeof address === "object" && address !== null ? address.port : 0, server)
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/**
 * The server's own layers: HTTP on node. Everything else (database, platform, queue, rate limiter,
 * secrets, webhooks, use cases, worker) comes from `@verbatim/runtime`, shared with every app.
 */
import { HttpServer } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { HttpLive, McpAllowedOrigins, McpHttpLive } from "@verbatim/api"
import { WebRoutes } from "@verbatim/web"
import { Layer } from "effect"
import type { ServerSettings } from "./config.js"
import { makeNodeServer } from "./node-server.js"

/**
 * The API with the web library's routes on its router (`VERBATIM_WEB`, on by default): registered
 * before the API's app is made from the router.
 */
export const apiWithWeb = (web: boolean) => (web ? HttpLive.pipe(Layer.provide(WebRoutes)) : HttpLive)

/**
 * The HTTP server of the settings, logging its address once listening: the API, the web library
 * at `/` (unless VERBATIM_WEB=false) and the MCP server over Streamable HTTP at /api/v2/gpt/mcp
 * (`@verbatim/mcp-tools`).
 */
export const httpFor = (
  settings: Pick<ServerSettings, "port" | "host" | "uploadPace" | "mcpAllowedOrigins" | "web"> &
    Partial<Pick<ServerSettings, "keepAliveTimeoutMs" | "connectionCaps">>
) =>
  apiWithWeb(settings.web).pipe(
    Layer.provide(
      McpHttpLive.pipe(Layer.provide(Layer.succeed(McpAllowedOrigins, settings.mcpAllowedOrigins)))
    ),
    HttpServer.withLogAddress,
    Layer.provide(
      NodeHttpServer.layer(
        () =>
          makeNodeServer({
            uploadPace: settings.uploadPace,
            keepAliveTimeoutMs: settings.keepAliveTimeoutMs,
            connectionCaps: settings.connectionCaps
          }),
        {
          port: settings.port,
          host: settings.host
        }
      )
    )
  )

/**
 * Every layer of the server, composed: the database (PGlite or PostgreSQL) migrated before use,
 * the repositories, the video platform, the rate limiter, the secrets, the use cases and HTTP.
 * Functions of the settings, so tests can swap the database and the HTTP server and keep the rest.
 */

import { HttpServer } from "@effect/platform"
import { NodeFileSystem, NodeHttpServer } from "@effect/platform-node"
import type * as SqlClient from "@effect/sql/SqlClient"
import { HttpLive } from "@verbatim/api"
import { AccountAdminLive, UseCasesLive, type VideoPlatform } from "@verbatim/core"
import { NodeSecrets } from "@verbatim/crypto"
import { databaseLayer, persistenceLayer, type Repositories } from "@verbatim/db"
import { type CatalogueInvalid, type DemoCatalogue, DemoPlatform } from "@verbatim/demo-platform"
import { MemoryRateLimiter } from "@verbatim/queue"
import { Layer } from "effect"
import type { ServerSettings } from "./config.js"
import { makeNodeServer } from "./node-server.js"

/** The persistence of the settings: PGlite in the data folder, or PostgreSQL; migrated when built. */
export const persistenceFor = (settings: Pick<ServerSettings, "database">) =>
  persistenceLayer(databaseLayer(settings.database))

/** The video platform of the settings (only the demo platform in this release). */
export const platformFor = (
  settings: Pick<ServerSettings, "demoCatalogue">
): Layer.Layer<VideoPlatform | DemoCatalogue, CatalogueInvalid> =>
  DemoPlatform.layer(settings.demoCatalogue).pipe(Layer.provide(NodeFileSystem.layer))

/** Every use case over the given persistence and platform, with the in-memory rate limiter and node's crypto. */
export const useCasesOn = <E1, E2>(
  persistence: Layer.Layer<Repositories | SqlClient.SqlClient, E1>,
  platform: Layer.Layer<VideoPlatform, E2>
) =>
  UseCasesLive.pipe(
    Layer.provide(Layer.mergeAll(persistence, platform, MemoryRateLimiter.layer, NodeSecrets.layer))
  )

/** What the admin command needs: accounts, keys and grants over the given persistence. */
export const adminOn = <E>(persistence: Layer.Layer<Repositories | SqlClient.SqlClient, E>) =>
  AccountAdminLive.pipe(Layer.provide(Layer.merge(persistence, NodeSecrets.layer)))

/** The HTTP server of the settings, logging its address once listening. */
export const httpFor = (settings: Pick<ServerSettings, "port" | "host">) =>
  HttpLive.pipe(
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(makeNodeServer, { port: settings.port, host: settings.host }))
  )

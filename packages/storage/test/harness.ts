/**
 * The stores the shared suite runs on, each started fresh in a temporary folder on this machine:
 *
 * - `local`: `LocalBlobStore` with a tiny node:http server that forwards
 *   `PUT /api/v2/uploads/files/{token}` to `SignedPutReceiver.receive`, so ticket URLs are real;
 * - `s3`: `S3BlobStore` on s3rver 3.7.1 (port 0), reached through a proxy that checks presigned
 *   SigV4 signatures as S3 does, since s3rver checks none (see `./sigv4-proxy.ts`).
 */
import { randomBytes, randomUUID } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { layer as effectLayer, type Vitest } from "@effect/vitest"
import {
  type BlobInfo,
  BlobStore,
  type BlobStoreError,
  type BlobStoreService,
  type PutRejected,
  SignedPutReceiver,
  type SignedPutReceiverService
} from "@verbatim/core"
import {
  Context,
  type Duration,
  Effect,
  type Exit,
  Layer,
  Logger,
  LogLevel,
  Queue,
  Redacted,
  Runtime,
  type Scope
} from "effect"
import S3rver from "s3rver"
import { LocalBlobStore, S3BlobStore } from "../src/index.js"
import { bodyOf } from "./http.js"
import { startProxy } from "./sigv4-proxy.js"

export const routePrefix = "/api/v2/uploads/files"
export const signingKey = Redacted.make("test-signing-key-0123456789abcdef0123456789")
export const s3Bucket = "verbatim-test"
export const s3Credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }

export type StoreName = "local" | "s3"

/** What a suite may need besides the port. */
export interface StoreKit {
  readonly name: StoreName
  /** Partial bodies left in the local store's `.partial` folder (none for S3). */
  readonly partials: Effect.Effect<ReadonlyArray<string>>
}

export class TestStore extends Context.Tag("test/TestStore")<TestStore, StoreKit>() {}

/** What the local test server saw: each `receive`'s outcome, in order. */
export interface LocalKit {
  readonly root: string
  readonly urlBase: string
  readonly outcomes: Queue.Queue<Exit.Exit<BlobInfo, PutRejected | BlobStoreError>>
}

export class TestLocal extends Context.Tag("test/TestLocal")<TestLocal, LocalKit>() {}

/** What the S3 tests need: s3rver's own URL (no signature check in front) and its bucket. */
export interface S3Kit {
  readonly s3rverUrl: string
  readonly proxyUrl: string
}

export class TestS3 extends Context.Tag("test/TestS3")<TestS3, S3Kit>() {}

const statusOf = (refusal: PutRejected["refusal"]): number => {
  switch (refusal) {
    case "bad_signature":
    case "expired":
      return 403
    case "content_type":
      return 415
    case "too_large":
      return 413
    case "size":
    case "incomplete":
      return 400
  }
}

const listen = (server: Server): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
    }),
    () =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

/**
 * The test server of the local store's signed PUT route: answers 200 with the `BlobInfo`, or the
 * refusal's status (403, 415, 400) with `Connection: close`.
 */
const serveReceiver = (
  receiver: () => SignedPutReceiverService,
  outcomes: Queue.Queue<Exit.Exit<BlobInfo, PutRejected | BlobStoreError>>
): Effect.Effect<number, never, Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://test.invalid")
      if (req.method !== "PUT" || !url.pathname.startsWith(`${routePrefix}/`)) {
        res.writeHead(404).end()
        return
      }
      const length = req.headers["content-length"]
      void Runtime.runPromiseExit(runtime)(
        receiver().receive({
          token: url.pathname.slice(routePrefix.length + 1),
          contentType: req.headers["content-type"],
          contentLength: length === undefined ? undefined : Number(length),
          body: bodyOf(req)
        })
      ).then((exit) => {
        Queue.unsafeOffer(outcomes, exit)
        if (exit._tag === "Success") {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(exit.value))
          return
        }
        const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        const status = failure?._tag === "PutRejected" ? statusOf(failure.refusal) : 500
        res.writeHead(status, { "content-type": "application/json", connection: "close" })
        res.end(JSON.stringify(failure ?? { error: "defect" }))
        // Drop what is left of a refused body (small in these tests).
        req.resume()
      })
    })
    return yield* listen(server)
  })

/** A local store in a fresh temporary folder, behind its test server. */
export const localLayer: Layer.Layer<BlobStore | SignedPutReceiver | TestStore | TestLocal> =
  Layer.scopedContext(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "verbatim-blobs-" })
      const root = join(dir, "blobs")
      const outcomes = yield* Queue.unbounded<Exit.Exit<BlobInfo, PutRejected | BlobStoreError>>()
      let receiver: SignedPutReceiverService | undefined
      const port = yield* serveReceiver(() => {
        if (receiver === undefined) throw new Error("the store is not ready")
        return receiver
      }, outcomes)
      const urlBase = `http://127.0.0.1:${port}${routePrefix}`
      const local = yield* LocalBlobStore.make({ root, signingKey, signedUrlBase: urlBase })
      receiver = local.receiver
      const partials = fs.readDirectory(join(root, ".partial")).pipe(Effect.orDie)
      return Context.make(BlobStore, local.store).pipe(
        Context.add(SignedPutReceiver, local.receiver),
        Context.add(TestStore, { name: "local", partials }),
        Context.add(TestLocal, { root, urlBase, outcomes })
      )
    })
  ).pipe(
    Layer.orDie,
    Layer.provide(NodeContext.layer),
    // Refusals are logged at INFO; the tests check them through `outcomes`.
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
  )

/** Starts s3rver on port 0 in a temporary folder, with the test bucket. */
export const startS3rver: Effect.Effect<string, never, Scope.Scope | FileSystem.FileSystem> = Effect.gen(
  function* () {
    const fs = yield* FileSystem.FileSystem
    const directory = yield* fs.makeTempDirectoryScoped({ prefix: "verbatim-s3rver-" }).pipe(Effect.orDie)
    const server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory,
      configureBuckets: [{ name: s3Bucket }]
    })
    const address = yield* Effect.acquireRelease(
      Effect.promise(() => server.run()),
      () =>
        Effect.promise(() => {
          server.httpServer?.closeAllConnections()
          return server.close()
        })
    )
    return `http://127.0.0.1:${address.port}`
  }
)

/** An S3 store on a given endpoint with the s3rver account. */
export const s3StoreAt = (
  endpoint: string,
  operationTimeout?: Duration.DurationInput
): Effect.Effect<BlobStoreService, BlobStoreError, Scope.Scope> =>
  S3BlobStore.make({
    bucket: s3Bucket,
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    accessKeyId: Redacted.make(s3Credentials.accessKeyId),
    secretAccessKey: Redacted.make(s3Credentials.secretAccessKey),
    ...(operationTimeout === undefined ? {} : { operationTimeout })
  })

/** An S3 store on s3rver behind the SigV4-checking proxy. */
export const s3Layer: Layer.Layer<BlobStore | TestStore | TestS3> = Layer.scopedContext(
  Effect.gen(function* () {
    const s3rverUrl = yield* startS3rver
    const { hostname, port } = new URL(s3rverUrl)
    const proxyUrl = yield* startProxy(
      { host: hostname, port: Number(port) },
      new Map([[s3Credentials.accessKeyId, s3Credentials.secretAccessKey]])
    )
    const store = yield* s3StoreAt(proxyUrl)
    return Context.make(BlobStore, store).pipe(
      Context.add(TestStore, { name: "s3", partials: Effect.succeed([]) }),
      Context.add(TestS3, { s3rverUrl, proxyUrl })
    )
  })
).pipe(Layer.orDie, Layer.provide(NodeContext.layer))

export interface StoreImplementation {
  readonly name: StoreName
  /** Shown in test names: what the implementation runs on, and what it cannot check. */
  readonly label: string
  readonly layer: Layer.Layer<BlobStore | TestStore>
}

export const stores: ReadonlyArray<StoreImplementation> = [
  { name: "local", label: "local folder + node:http receiver", layer: localLayer },
  {
    name: "s3",
    label: "s3 on s3rver, which checks no SigV4 signature: a SigV4-checking proxy in front stands in for S3",
    layer: s3Layer
  }
]

/** `describe`s the suite once per store, each on its own fresh store shared by the suite's tests. */
export const describeEachStore = (
  name: string,
  suite: (it: Vitest.MethodsNonLive<BlobStore | TestStore, true>, implementation: StoreImplementation) => void
): void => {
  for (const implementation of stores) {
    // Live clock: each store is reached over real HTTP (its receiver, or s3rver) on a local port.
    effectLayer(implementation.layer, { timeout: "60 seconds", excludeTestServices: true })(
      `${name} [${implementation.label}]`,
      (it) => suite(it, implementation)
    )
  }
}

/** A path no other test uses. */
export const freshPath = (label = "file"): string =>
  `uploads/acc-${randomUUID().slice(0, 8)}/${label}-${randomUUID().slice(0, 8)}`

export const randomBody = (size: number): Uint8Array => new Uint8Array(randomBytes(size))

/**
 * The local store without HTTP, on the test clock: expiry to the millisecond, bodies that fail or
 * never end, the start-time sweep, and settings. (Kept apart from the `layer(…)` suite of
 * `./local.test.ts`: in @effect/vitest 0.30 a `layer` with `excludeTestServices` in the same file
 * leaves later top-level tests without a working `TestClock`.)
 */
import { utimes, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import {
  BlobStore,
  BlobStoreError,
  PutRejected,
  SignedPutReceiver,
  type SignedPutReceiverService
} from "@verbatim/core"
import {
  Clock,
  ConfigProvider,
  DateTime,
  Duration,
  Effect,
  Either,
  Exit,
  Layer,
  Logger,
  LogLevel,
  Option,
  Redacted,
  Schedule,
  Stream,
  TestClock
} from "effect"
import { LocalBlobStore } from "../src/index.js"
import { signingKey } from "./harness.js"

const inAnHour = Effect.map(DateTime.now, DateTime.add({ hours: 1 }))

const refusalOf = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof PutRejected
    ? exit.cause.error.refusal
    : undefined

/** A store on its own temporary folder, with the test clock and no HTTP. */
const isolated = (settings: Partial<LocalBlobStore.LocalBlobStoreSettings> = {}) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "verbatim-blobs-" })
    const root = join(dir, "blobs")
    const local = yield* LocalBlobStore.make({
      root,
      signingKey,
      signedUrlBase: "http://127.0.0.1:1/files/",
      ...settings
    })
    return { ...local, fs, root }
  }).pipe(Effect.provide(NodeContext.layer), Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))

describe("LocalBlobStore without HTTP", () => {
  it.scoped(
    "expiry follows Effect's clock: accepted until the last millisecond, refused from expiresAt",
    () =>
      Effect.gen(function* () {
        const { store, receiver } = yield* isolated()
        const expiresAt = DateTime.add(yield* DateTime.now, { minutes: 10 })
        const ticket = yield* store.signPut("a/b", { contentType: "audio/mpeg", sizeBytes: 2, expiresAt })
        expect(ticket.url).toBe(`http://127.0.0.1:1/files/${ticket.token}`)
        const send = receiver.receive({
          token: ticket.token,
          contentType: "audio/mpeg",
          contentLength: 2,
          body: Stream.make(new Uint8Array([1, 2]))
        })
        yield* TestClock.adjust(Duration.millis(10 * 60_000 - 1))
        expect(yield* send).toEqual({ sizeBytes: 2, contentType: "audio/mpeg" })
        yield* TestClock.adjust(Duration.millis(1))
        expect(refusalOf(yield* Effect.exit(send))).toBe("expired")
      })
  )

  it.scoped(
    "the expiry is checked when the PUT starts, as S3 does; a refusal before the commit keeps nothing",
    () =>
      Effect.gen(function* () {
        const { store, receiver, fs, root } = yield* isolated()
        const expiresAt = DateTime.add(yield* DateTime.now, { minutes: 10 })
        const ticket = yield* store.signPut("a/b", { contentType: "audio/mpeg", sizeBytes: 2, expiresAt })
        // The first byte comes in time, the second once the URL has expired: the PUT had started.
        const late = () =>
          Stream.concat(
            Stream.make(new Uint8Array([1])),
            Stream.fromEffect(TestClock.adjust(Duration.minutes(10)).pipe(Effect.as(new Uint8Array([2]))))
          )
        const put = { token: ticket.token, contentType: "audio/mpeg", contentLength: 2 }
        const refused = yield* Effect.exit(
          receiver.receive(
            { ...put, body: Stream.make(new Uint8Array([1, 2])) },
            Effect.fail("ended" as const)
          )
        )
        expect(refused).toEqual(Exit.fail("ended"))
        expect(yield* store.stat("a/b")).toEqual(Option.none())
        expect(yield* fs.readDirectory(join(root, ".partial"))).toEqual([])
        expect(yield* receiver.receive({ ...put, body: late() })).toEqual({
          sizeBytes: 2,
          contentType: "audio/mpeg"
        })
        expect(refusalOf(yield* Effect.exit(receiver.receive({ ...put, body: late() })))).toBe("expired")
      })
  )

  it.scoped(
    "a body that fails is incomplete; a body that goes on past the size is too_large, read no further than 16 MiB past it",
    () =>
      Effect.gen(function* () {
        const { store, receiver } = yield* isolated()
        const ticket = yield* store.signPut("a/b", {
          contentType: "audio/mpeg",
          sizeBytes: 10,
          expiresAt: yield* inAnHour
        })
        const failing = receiver.receive({
          token: ticket.token,
          contentType: "audio/mpeg",
          contentLength: undefined,
          body: Stream.concat(Stream.make(new Uint8Array(5)), Stream.fail("reset"))
        })
        expect(refusalOf(yield* Effect.exit(failing))).toBe("incomplete")
        let pulled = 0
        const endless = Stream.repeatEffect(
          Effect.sync(() => (pulled += 1)).pipe(Effect.as(new Uint8Array(65_536)))
        )
        const long = receiver.receive({
          token: ticket.token,
          contentType: "audio/mpeg",
          contentLength: undefined,
          body: endless
        })
        expect(refusalOf(yield* Effect.exit(long))).toBe("too_large")
        // Read and dropped past the size so a sender hears the answer, but never endlessly: the
        // chunk that passes 10 bytes + 16 MiB is the last one pulled.
        expect(pulled).toBe(Math.floor((10 + 16 * 1024 * 1024) / 65_536) + 1)
        expect(yield* store.stat("a/b")).toEqual(Option.none())
      })
  )

  it.scoped("partial bodies left by a crash are swept when the store starts, fresh ones are kept", () =>
    Effect.gen(function* () {
      const fs = yield* Effect.provide(FileSystem.FileSystem, NodeContext.layer)
      const dir = yield* fs.makeTempDirectoryScoped().pipe(Effect.provide(NodeContext.layer))
      const partials = join(dir, ".partial")
      yield* Effect.promise(async () => {
        const { mkdir } = await import("node:fs/promises")
        await mkdir(partials, { recursive: true })
        await writeFile(join(partials, "old"), "x")
        await writeFile(join(partials, "new"), "x")
        const twoHoursAgo = new Date(Date.now() - 2 * 3600_000)
        await utimes(join(partials, "old"), twoHoursAgo, twoHoursAgo)
      })
      yield* Effect.provide(
        Effect.gen(function* () {
          yield* TestClock.setTime(Date.now())
          return yield* LocalBlobStore.make({ root: dir, signingKey, signedUrlBase: "http://h/files" })
        }),
        Layer.merge(NodeContext.layer, Logger.minimumLogLevel(LogLevel.Warning))
      )
      expect((yield* fs.readDirectory(partials)).sort()).toEqual(["new"])
    })
  )

  it.scoped("a running store sweeps again: a partial body left idle is deleted without a restart", () =>
    Effect.gen(function* () {
      const fs = yield* Effect.provide(FileSystem.FileSystem, NodeContext.layer)
      const dir = yield* fs.makeTempDirectoryScoped().pipe(Effect.provide(NodeContext.layer))
      const partials = join(dir, ".partial")
      yield* TestClock.setTime(Date.now())
      yield* Layer.build(
        LocalBlobStore.layer({ root: dir, signingKey, signedUrlBase: "http://h/files" }).pipe(
          Layer.provide(Layer.merge(NodeContext.layer, Logger.minimumLogLevel(LogLevel.Warning)))
        )
      )
      // Left after the store started (a crash of a process sharing the folder): fresh, so kept...
      yield* Effect.promise(() => writeFile(join(partials, "left"), "x"))
      yield* TestClock.adjust(LocalBlobStore.defaultSweepEvery)
      expect(yield* fs.readDirectory(partials)).toEqual(["left"])
      // ...until it has been idle for staleAfter: the next sweeps delete it.
      yield* TestClock.adjust(LocalBlobStore.defaultStaleAfter)
      yield* TestClock.adjust(LocalBlobStore.defaultSweepEvery)
      // The sweep's file system calls are real: wait for its removal (bounded), not a fixed time.
      const emptied = yield* fs.readDirectory(partials).pipe(
        Effect.filterOrFail((names) => names.length === 0),
        Effect.retry(Schedule.intersect(Schedule.recurs(200), Schedule.spaced("10 millis"))),
        Effect.withClock(Clock.make()),
        Effect.either
      )
      expect(emptied._tag).toBe("Right")
    })
  )

  it.scoped("settings are checked: a short key or a bad URL base cannot start a store", () =>
    Effect.gen(function* () {
      const short = yield* Effect.flip(isolated({ signingKey: Redacted.make("short") }))
      expect(short).toBeInstanceOf(BlobStoreError)
      for (const signedUrlBase of ["not a url", "ftp://h/files", "http://h/files?x=1"]) {
        const bad = yield* Effect.flip(isolated({ signedUrlBase }))
        expect(bad, signedUrlBase).toBeInstanceOf(BlobStoreError)
      }
    })
  )

  const read = (env: Record<string, string>) =>
    Effect.runSync(
      Effect.either(
        Effect.withConfigProvider(
          LocalBlobStore.LocalBlobStoreConfig,
          ConfigProvider.fromMap(new Map(Object.entries(env)))
        )
      )
    )

  it("settings from the environment", () => {
    const key = "k".repeat(32)
    const settings = read({
      VERBATIM_BLOB_SIGNING_KEY: key,
      VERBATIM_BLOB_SIGNED_URL_BASE: "https://verbatim.example/api/v2/uploads/files"
    })
    expect(Either.isRight(settings) && settings.right.root).toBe("./.data/blobs")
    expect(Either.isRight(settings) && Redacted.value(settings.right.signingKey)).toBe(key)
    expect(
      Either.isRight(
        read({
          VERBATIM_BLOB_DIR: "/srv/blobs",
          VERBATIM_BLOB_SIGNING_KEY: key,
          VERBATIM_BLOB_SIGNED_URL_BASE: "http://h"
        })
      )
    ).toBe(true)
    expect(Either.isLeft(read({ VERBATIM_BLOB_SIGNED_URL_BASE: "http://h" }))).toBe(true)
    expect(
      Either.isLeft(read({ VERBATIM_BLOB_SIGNING_KEY: "short", VERBATIM_BLOB_SIGNED_URL_BASE: "http://h" }))
    ).toBe(true)
    expect(
      Either.isLeft(read({ VERBATIM_BLOB_SIGNING_KEY: key, VERBATIM_BLOB_SIGNED_URL_BASE: "nope" }))
    ).toBe(true)
  })

  it.scoped("layerConfig provides the store and the receiver", () =>
    Effect.gen(function* () {
      const fs = yield* Effect.provide(FileSystem.FileSystem, NodeContext.layer)
      const dir = yield* fs.makeTempDirectoryScoped().pipe(Effect.provide(NodeContext.layer))
      const provider = ConfigProvider.fromMap(
        new Map([
          ["VERBATIM_BLOB_DIR", dir],
          ["VERBATIM_BLOB_SIGNING_KEY", Redacted.value(signingKey)],
          ["VERBATIM_BLOB_SIGNED_URL_BASE", "http://h/files/"]
        ])
      )
      const [store, receiver]: [BlobStore["Type"], SignedPutReceiverService] = yield* Effect.all([
        BlobStore,
        SignedPutReceiver
      ]).pipe(
        Effect.provide(
          LocalBlobStore.layerConfig.pipe(
            Layer.provide(NodeContext.layer),
            Layer.provide(Layer.setConfigProvider(provider))
          )
        )
      )
      expect(store.bucket).toBe("local")
      const ticket = yield* store.signPut("x/y", {
        contentType: "audio/mpeg",
        sizeBytes: 1,
        expiresAt: yield* inAnHour
      })
      expect(ticket.url.startsWith("http://h/files/")).toBe(true)
      yield* receiver.receive({
        token: ticket.token,
        contentType: "audio/mpeg",
        contentLength: 1,
        body: Stream.make(new Uint8Array([7]))
      })
      expect(yield* store.stat("x/y")).toEqual(Option.some({ sizeBytes: 1, contentType: "audio/mpeg" }))
    })
  )
})

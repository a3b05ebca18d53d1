/**
 * What only the S3 store has: what the presigned URL binds, what s3rver alone does not check, the
 * SDK's failures mapped to `BlobStoreError`, and the settings read from the environment.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { BlobStore, BlobStoreError } from "@verbatim/core"
import {
  ConfigProvider,
  DateTime,
  Duration,
  Effect,
  Either,
  Exit,
  FastCheck as fc,
  Option,
  Redacted,
  Stream
} from "effect"
import { S3BlobStore } from "../src/index.js"
import { freshPath, randomBody, s3Layer, s3StoreAt, TestS3 } from "./harness.js"
import { put } from "./http.js"

const inAnHour = Effect.map(DateTime.now, DateTime.add({ hours: 1 }))

// Live clock: s3rver is a real HTTP server on a local port.
layer(s3Layer, { timeout: "60 seconds", excludeTestServices: true })("S3BlobStore on s3rver", (it) => {
  it.effect("the presigned URL signs Content-Type, Content-Length and Host, and expires by the terms", () =>
    Effect.gen(function* () {
      const store = yield* BlobStore
      const now = yield* DateTime.now
      const expiresAt = DateTime.add(now, { minutes: 15 })
      const ticket = yield* store.signPut("uploads/a/b", {
        contentType: "audio/mpeg",
        sizeBytes: 42,
        expiresAt
      })
      const query = new URL(ticket.url).searchParams
      expect(query.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host")
      expect(query.get("X-Amz-Content-Sha256")).toBe("UNSIGNED-PAYLOAD")
      expect(ticket.token).toBe(query.get("X-Amz-Signature"))
      expect(new URL(ticket.url).pathname).toBe("/verbatim-test/uploads/a/b")
      // No checksum of an empty body presigned by the SDK (it would break every real upload).
      expect([...query.keys()].filter((key) => key.toLowerCase().includes("checksum"))).toEqual([])
      const date = query.get("X-Amz-Date") ?? ""
      const signedAt = Date.UTC(
        Number(date.slice(0, 4)),
        Number(date.slice(4, 6)) - 1,
        Number(date.slice(6, 8)),
        Number(date.slice(9, 11)),
        Number(date.slice(11, 13)),
        Number(date.slice(13, 15))
      )
      const urlExpiry = signedAt + Number(query.get("X-Amz-Expires")) * 1000
      expect(urlExpiry).toBeLessThanOrEqual(DateTime.toEpochMillis(expiresAt))
      expect(urlExpiry).toBeGreaterThan(DateTime.toEpochMillis(expiresAt) - 2000)
    })
  )

  it.effect("the checking proxy refuses a changed Content-Type or length with SignatureDoesNotMatch", () =>
    Effect.gen(function* () {
      const store = yield* BlobStore
      const path = freshPath()
      const ticket = yield* store.signPut(path, {
        contentType: "audio/mpeg",
        sizeBytes: 10,
        expiresAt: yield* inAnHour
      })
      const wrongType = yield* put({
        url: ticket.url,
        headers: { "content-type": "audio/MPEG" },
        body: randomBody(10)
      })
      expect(wrongType.status).toBe(403)
      expect(wrongType.body).toContain("SignatureDoesNotMatch")
      const wrongSize = yield* put({
        url: ticket.url,
        headers: { "content-type": "audio/mpeg" },
        body: randomBody(11)
      })
      expect(wrongSize.body).toContain("SignatureDoesNotMatch")
      const tampered = yield* put({
        url: ticket.url.replace("uploads/", "uploadz/"),
        headers: { "content-type": "audio/mpeg" },
        body: randomBody(10)
      })
      expect(tampered.body).toContain("SignatureDoesNotMatch")
    })
  )

  it.scoped(
    "s3rver ALONE checks no SigV4 signature: it stores a wrong Content-Type and size (only real S3 or the proxy refuses them)",
    () =>
      Effect.gen(function* () {
        const { s3rverUrl } = yield* TestS3
        const direct = yield* s3StoreAt(s3rverUrl)
        const path = freshPath()
        const ticket = yield* direct.signPut(path, {
          contentType: "audio/mpeg",
          sizeBytes: 10,
          expiresAt: yield* inAnHour
        })
        const answer = yield* put({
          url: ticket.url,
          headers: { "content-type": "text/html" },
          body: randomBody(99)
        })
        expect(answer.status).toBe(200)
        expect(yield* direct.stat(path)).toEqual(Option.some({ sizeBytes: 99, contentType: "text/html" }))
        // It does check the expiry.
        const expired = yield* direct.signPut(freshPath(), {
          contentType: "audio/mpeg",
          sizeBytes: 1,
          expiresAt: DateTime.subtract(yield* DateTime.now, { seconds: 5 })
        })
        const late = yield* put({
          url: expired.url,
          headers: { "content-type": "audio/mpeg" },
          body: randomBody(1)
        })
        expect(late.status).toBe(403)
        expect(late.body).toContain("Request has expired")
      })
  )

  it.scoped("a bucket that does not exist is a BlobStoreError, not a missing object", () =>
    Effect.gen(function* () {
      const { proxyUrl } = yield* TestS3
      const store = yield* S3BlobStore.make({
        bucket: "no-such-bucket",
        region: "us-east-1",
        endpoint: proxyUrl,
        forcePathStyle: true,
        accessKeyId: Redacted.make("S3RVER"),
        secretAccessKey: Redacted.make("S3RVER")
      })
      const read = yield* Effect.flip(Stream.runDrain(store.read("uploads/a/b")))
      expect(read).toBeInstanceOf(BlobStoreError)
      expect(yield* Effect.flip(store.remove("uploads/a/b"))).toBeInstanceOf(BlobStoreError)
    })
  )

  it.effect("terms S3 cannot sign are refused: more than 7 days, more than 5 GiB", () =>
    Effect.gen(function* () {
      const store = yield* BlobStore
      const now = yield* DateTime.now
      const tooLong = yield* Effect.flip(
        store.signPut("uploads/a/b", {
          contentType: "audio/mpeg",
          sizeBytes: 1,
          expiresAt: DateTime.add(now, { days: 7, seconds: 1 })
        })
      )
      expect(tooLong).toBeInstanceOf(BlobStoreError)
      yield* store.signPut("uploads/a/b", {
        contentType: "audio/mpeg",
        sizeBytes: 5 * 1024 ** 3,
        expiresAt: DateTime.add(now, { days: 7 })
      })
      const tooBig = yield* Effect.flip(
        store.signPut("uploads/a/b", {
          contentType: "audio/mpeg",
          sizeBytes: 5 * 1024 ** 3 + 1,
          expiresAt: DateTime.add(now, { hours: 1 })
        })
      )
      expect(tooBig).toBeInstanceOf(BlobStoreError)
    })
  )

  it.effect("a read stopped early frees its connection: later calls still work", () =>
    Effect.gen(function* () {
      const store = yield* BlobStore
      const path = freshPath()
      const body = randomBody(2 * 1024 * 1024)
      const ticket = yield* store.signPut(path, {
        contentType: "video/mp4",
        sizeBytes: body.byteLength,
        expiresAt: yield* inAnHour
      })
      yield* put({ url: ticket.url, headers: { "content-type": "video/mp4" }, body })
      for (let i = 0; i < 60; i++) yield* Stream.runDrain(Stream.take(store.read(path), 1))
      expect(Option.isSome(yield* store.stat(path))).toBe(true)
    })
  )
})

// Live clock: s3rver is a real HTTP server on a local port.
describe("S3BlobStore", () => {
  it.scoped("an unreachable service fails with BlobStoreError, within the operation timeout", () =>
    Effect.gen(function* () {
      const store = yield* s3StoreAt("http://127.0.0.1:1", Duration.seconds(5))
      const stat = yield* Effect.exit(store.stat("uploads/a/b"))
      expect(Exit.isFailure(stat) && stat.cause._tag === "Fail" && stat.cause.error).toBeInstanceOf(
        BlobStoreError
      )
      const read = yield* Effect.flip(Stream.runDrain(store.read("uploads/a/b")))
      expect(read).toBeInstanceOf(BlobStoreError)
      const remove = yield* Effect.flip(store.remove("uploads/a/b"))
      expect(remove).toBeInstanceOf(BlobStoreError)
      // Presigning needs no network.
      yield* store.signPut("uploads/a/b", {
        contentType: "audio/mpeg",
        sizeBytes: 1,
        expiresAt: yield* inAnHour
      })
    })
  )

  it.live("a call that hangs fails after the operation timeout", () =>
    Effect.gen(function* () {
      const { createServer } = yield* Effect.promise(() => import("node:http"))
      const silent = createServer(() => {})
      const port = yield* Effect.async<number>((resume) => {
        silent.listen(0, "127.0.0.1", () => {
          const address = silent.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
        })
      })
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          silent.closeAllConnections()
          silent.close()
        })
      )
      const store = yield* s3StoreAt(`http://127.0.0.1:${port}`, Duration.millis(300))
      const started = Date.now()
      const failure = yield* Effect.flip(store.stat("uploads/a/b"))
      expect(failure).toBeInstanceOf(BlobStoreError)
      expect(failure.reason).toContain("timed out")
      expect(Date.now() - started).toBeLessThan(3000)
    }).pipe(Effect.scoped)
  )

  const read = (env: Record<string, string>) =>
    Effect.runSync(
      Effect.either(
        Effect.withConfigProvider(
          S3BlobStore.S3BlobStoreConfig,
          ConfigProvider.fromMap(new Map(Object.entries(env)))
        )
      )
    )

  it("settings from the environment", () => {
    const full = read({
      VERBATIM_S3_BUCKET: "media",
      VERBATIM_S3_REGION: "eu-west-3",
      VERBATIM_S3_ENDPOINT: "http://minio:9000/",
      VERBATIM_S3_FORCE_PATH_STYLE: "true",
      VERBATIM_S3_ACCESS_KEY_ID: "AKIA",
      VERBATIM_S3_SECRET_ACCESS_KEY: "shh"
    })
    expect(Either.isRight(full)).toBe(true)
    if (Either.isRight(full)) {
      const { accessKeyId, secretAccessKey, ...rest } = full.right
      expect(rest).toEqual({
        bucket: "media",
        region: "eu-west-3",
        endpoint: "http://minio:9000",
        forcePathStyle: true
      })
      expect(accessKeyId && Redacted.value(accessKeyId)).toBe("AKIA")
      expect(secretAccessKey && Redacted.value(secretAccessKey)).toBe("shh")
      expect(String(secretAccessKey)).not.toContain("shh")
    }
    const minimal = read({ VERBATIM_S3_BUCKET: "media" })
    expect(minimal).toEqual(
      Either.right({
        bucket: "media",
        region: "us-east-1",
        endpoint: undefined,
        forcePathStyle: false,
        accessKeyId: undefined,
        secretAccessKey: undefined
      })
    )
    expect(Either.isLeft(read({}))).toBe(true)
    expect(Either.isLeft(read({ VERBATIM_S3_BUCKET: "media", VERBATIM_S3_ACCESS_KEY_ID: "AKIA" }))).toBe(true)
    expect(Either.isLeft(read({ VERBATIM_S3_BUCKET: "media", VERBATIM_S3_ENDPOINT: "not a url" }))).toBe(true)
  })

  it.effect.prop(
    "every valid path is presigned under /bucket/path (no escaping needed)",
    [fc.array(fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,20}$/), { minLength: 1, maxLength: 5 })],
    ([segments]) =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* s3StoreAt("http://127.0.0.1:1")
          const path = segments.join("/")
          const ticket = yield* store.signPut(path, {
            contentType: "audio/mpeg",
            sizeBytes: 1,
            expiresAt: DateTime.add(yield* DateTime.now, { minutes: 1 })
          })
          expect(new URL(ticket.url).pathname).toBe(`/verbatim-test/${path}`)
          expect(ticket.path).toBe(path)
        })
      ),
    { fastCheck: { numRuns: 50 } }
  )
})

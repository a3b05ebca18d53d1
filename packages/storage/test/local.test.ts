/**
 * What only the local store has, through its test HTTP server: the receiver's refusals (each one
 * named), the token and the root it can never leave, bodies that stop half-way, and its folder
 * layout. Without HTTP, on the test clock: `./local-alone.test.ts`.
 */
import { join } from "node:path"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { BlobStore, BlobStoreError, PutRejected, type PutTerms, SignedPutReceiver } from "@verbatim/core"
import { DateTime, Duration, Effect, Exit, Fiber, Option, Queue, Redacted, Stream } from "effect"
import { PutToken } from "../src/index.js"
import { freshPath, localLayer, randomBody, signingKey, TestLocal, TestStore } from "./harness.js"
import { put, putAndDisconnect } from "./http.js"

const inAnHour = Effect.map(DateTime.now, DateTime.add({ hours: 1 }))

/** The next outcome the test server recorded, as a refusal name or "stored". */
const nextOutcome = Effect.gen(function* () {
  const { outcomes } = yield* TestLocal
  const exit = yield* Queue.take(outcomes).pipe(Effect.timeout(Duration.seconds(10)))
  if (Exit.isSuccess(exit)) return "stored"
  return exit.cause._tag === "Fail" && exit.cause.error._tag === "PutRejected"
    ? exit.cause.error.refusal
    : `failure: ${String(exit.cause)}`
})

const signed = (path: string, terms: Partial<PutTerms> = {}) =>
  Effect.gen(function* () {
    const store = yield* BlobStore
    return yield* store.signPut(path, {
      contentType: terms.contentType ?? "audio/mpeg",
      sizeBytes: terms.sizeBytes ?? 100,
      expiresAt: terms.expiresAt ?? (yield* inAnHour)
    })
  })

/** Every file under a folder, hidden ones included, relative to it. */
const filesUnder = (folder: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const names = yield* fs.readDirectory(folder, { recursive: true })
    const files: Array<string> = []
    for (const name of names) {
      const info = yield* fs.stat(join(folder, name))
      if (info.type === "File") files.push(name)
    }
    return files.sort()
  }).pipe(Effect.orDie, Effect.provide(NodeContext.layer))

const refusalOf = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof PutRejected
    ? exit.cause.error.refusal
    : undefined

// Live clock: the local store's receiver is a real HTTP server on a local port.
layer(localLayer, { timeout: "60 seconds", excludeTestServices: true })("LocalBlobStore", (it) => {
  it.effect("a tampered, foreign or malformed token is refused as bad_signature and stores nothing", () =>
    Effect.gen(function* () {
      const path = freshPath()
      const body = randomBody(100)
      const ticket = yield* signed(path)
      const [payload = "", signature = ""] = ticket.token.split(".")
      const flip = (text: string, at: number) =>
        text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1)
      const foreign = PutToken.sign(Redacted.make("another-key-that-is-long-enough-0123456789"), {
        path,
        contentType: "audio/mpeg",
        sizeBytes: 100,
        expiresAtMillis: DateTime.toEpochMillis(ticket.expiresAt)
      })
      const { urlBase } = yield* TestLocal
      for (const token of [
        `${flip(payload, 3)}.${signature}`,
        `${payload}.${flip(signature, 10)}`,
        `${payload}.${signature}A`,
        foreign,
        "garbage",
        `${payload}.`,
        `${payload}.${signature}.${signature}`
      ]) {
        const answer = yield* put({
          url: `${urlBase}/${token}`,
          headers: { "content-type": "audio/mpeg" },
          body
        })
        expect(answer.status, token).toBe(403)
        expect(yield* nextOutcome).toBe("bad_signature")
      }
      expect(yield* Effect.flatMap(BlobStore, (store) => store.stat(path))).toEqual(Option.none())
    })
  )

  it.effect(
    "a token can never write outside the root, even one signed with the key for a path like ../x",
    () =>
      Effect.gen(function* () {
        const { root, urlBase } = yield* TestLocal
        const store = yield* BlobStore
        const expiresAt = yield* inAnHour
        for (const path of [
          "../escape",
          "uploads/../../escape",
          "/tmp/escape",
          "uploads/./x",
          ".partial/x"
        ]) {
          const refused = yield* Effect.flip(
            store.signPut(path, { contentType: "audio/mpeg", sizeBytes: 3, expiresAt })
          )
          expect(refused).toBeInstanceOf(BlobStoreError)
          // A token forged with the key itself (signPut never makes one) is still refused.
          const forged = PutToken.sign(signingKey, {
            path,
            contentType: "audio/mpeg",
            sizeBytes: 3,
            expiresAtMillis: DateTime.toEpochMillis(expiresAt)
          })
          const answer = yield* put({
            url: `${urlBase}/${forged}`,
            headers: { "content-type": "audio/mpeg" },
            body: randomBody(3)
          })
          expect(answer.status).toBe(403)
          expect(yield* nextOutcome).toBe("bad_signature")
        }
        const everything = yield* filesUnder(join(root, ".."))
        expect(everything.filter((name) => name.includes("escape"))).toEqual([])
      })
  )

  it.effect("each refusal is named: content_type, too_large and size (Content-Length or body), expired", () =>
    Effect.gen(function* () {
      const path = freshPath()
      const ticket = yield* signed(path, { sizeBytes: 100 })
      const url = ticket.url
      yield* put({ url, headers: { "content-type": "audio/wav" }, body: randomBody(100) })
      expect(yield* nextOutcome).toBe("content_type")
      yield* put({ url, headers: { "content-type": "audio/mpeg" }, body: randomBody(101) })
      expect(yield* nextOutcome).toBe("too_large")
      yield* put({ url, headers: { "content-type": "audio/mpeg" }, body: randomBody(150), chunked: true })
      expect(yield* nextOutcome).toBe("too_large")
      yield* put({ url, headers: { "content-type": "audio/mpeg" }, body: randomBody(99), chunked: true })
      expect(yield* nextOutcome).toBe("size")
      const past = yield* signed(path, { expiresAt: DateTime.subtract(yield* DateTime.now, { millis: 1 }) })
      yield* put({ url: past.url, headers: { "content-type": "audio/mpeg" }, body: randomBody(100) })
      expect(yield* nextOutcome).toBe("expired")
      expect(yield* (yield* TestStore).partials).toEqual([])
    })
  )

  it.effect("Content-Type: the media type ignores letter case; parameters must be the signed ones", () =>
    Effect.gen(function* () {
      const plain = yield* signed(freshPath(), { contentType: "audio/mpeg", sizeBytes: 5 })
      for (const [contentType, outcome] of [
        ["AUDIO/MPEG", "stored"],
        ["Audio/Mpeg ", "stored"],
        ["audio/mpeg; charset=utf-8", "content_type"],
        ["audio/mpeg3", "content_type"],
        ["audio/*", "content_type"]
      ] as const) {
        yield* put({ url: plain.url, headers: { "content-type": contentType }, body: randomBody(5) })
        expect(yield* nextOutcome, contentType).toBe(outcome)
      }
      const withCodecs = yield* signed(freshPath(), { contentType: "audio/ogg; codecs=opus", sizeBytes: 5 })
      for (const [contentType, outcome] of [
        ["audio/ogg;codecs=opus", "stored"],
        ["Audio/OGG; Codecs=opus", "stored"],
        ["audio/ogg; codecs=OPUS", "content_type"],
        ["audio/ogg", "content_type"]
      ] as const) {
        yield* put({ url: withCodecs.url, headers: { "content-type": contentType }, body: randomBody(5) })
        expect(yield* nextOutcome, contentType).toBe(outcome)
      }
    })
  )

  it.effect("a client that disconnects mid-body leaves nothing: no blob, no partial file", () =>
    Effect.gen(function* () {
      const path = freshPath()
      const ticket = yield* signed(path, { sizeBytes: 200_000 })
      yield* putAndDisconnect({
        url: ticket.url,
        contentType: "audio/mpeg",
        declared: 200_000,
        sent: randomBody(70_000)
      })
      expect(yield* nextOutcome).toBe("incomplete")
      expect(yield* Effect.flatMap(BlobStore, (store) => store.stat(path))).toEqual(Option.none())
      expect(yield* (yield* TestStore).partials).toEqual([])
    })
  )

  it.effect("a receive interrupted mid-body (the server gave up) leaves nothing", () =>
    Effect.gen(function* () {
      const receiver = yield* SignedPutReceiver
      const path = freshPath()
      const ticket = yield* signed(path, { sizeBytes: 1000 })
      const fed = yield* Queue.unbounded<Uint8Array>()
      const fiber = yield* Effect.fork(
        receiver.receive({
          token: ticket.token,
          contentType: "audio/mpeg",
          contentLength: 1000,
          body: Stream.fromQueue(fed)
        })
      )
      yield* Queue.offer(fed, randomBody(400))
      // Wait until the partial file exists, then interrupt.
      const kit = yield* TestStore
      yield* Effect.repeat(kit.partials, { until: (names) => names.length > 0 }).pipe(
        Effect.timeout(Duration.seconds(5))
      )
      yield* Fiber.interrupt(fiber)
      expect(yield* kit.partials).toEqual([])
      expect(yield* Effect.flatMap(BlobStore, (store) => store.stat(path))).toEqual(Option.none())
    })
  )

  it.effect("refusals before the body never read it", () =>
    Effect.gen(function* () {
      const receiver = yield* SignedPutReceiver
      const ticket = yield* signed(freshPath(), { sizeBytes: 10 })
      const untouchable = Stream.die("the body was read")
      const attempts = [
        { token: `${ticket.token}x`, contentType: "audio/mpeg", contentLength: 10 },
        { token: ticket.token, contentType: "video/mpeg", contentLength: 10 },
        { token: ticket.token, contentType: "audio/mpeg", contentLength: 11 },
        { token: ticket.token, contentType: "audio/mpeg", contentLength: 9 }
      ]
      const refusals = []
      for (const attempt of attempts)
        refusals.push(refusalOf(yield* Effect.exit(receiver.receive({ ...attempt, body: untouchable }))))
      expect(refusals).toEqual(["bad_signature", "content_type", "too_large", "size"])
    })
  )

  it.effect("layout: the blob at its path, a hidden content-type sidecar beside it, nothing else", () =>
    Effect.gen(function* () {
      const { root } = yield* TestLocal
      const path = `layout-${Date.now()}/a/b`
      const ticket = yield* signed(path, { contentType: "video/webm", sizeBytes: 7 })
      yield* put({ url: ticket.url, headers: { "content-type": "video/webm" }, body: randomBody(7) })
      expect(yield* nextOutcome).toBe("stored")
      expect(yield* filesUnder(join(root, path.split("/")[0] ?? ""))).toEqual(["a/.b.meta.json", "a/b"])
      const fs = yield* Effect.provide(FileSystem.FileSystem, NodeContext.layer)
      const sidecar = yield* fs.readFileString(join(root, path.split("/")[0] ?? "", "a/.b.meta.json"))
      expect(JSON.parse(sidecar)).toEqual({ contentType: "video/webm", sizeBytes: 7 })
      yield* Effect.flatMap(BlobStore, (store) => store.remove(path))
      expect(yield* filesUnder(join(root, path.split("/")[0] ?? ""))).toEqual([])
    })
  )
})

/**
 * The `BlobStore` contract, run on every store (see `./harness.ts`): a client PUTs to the signed
 * URL over real HTTP, and only a PUT that keeps every signed term stores anything.
 */
import { expect } from "@effect/vitest"
import { BlobMissing, BlobStore, BlobStoreError, type PutTicket } from "@verbatim/core"
import { Chunk, DateTime, Duration, Effect, Either, Option, Stream } from "effect"
import { describeEachStore, freshPath, randomBody, TestStore } from "./harness.js"
import { type Answer, put } from "./http.js"

const inAnHour = Effect.map(DateTime.now, DateTime.add({ hours: 1 }))

const sign = (path: string, contentType: string, sizeBytes: number, expiresAt?: DateTime.Utc) =>
  Effect.gen(function* () {
    const store = yield* BlobStore
    return yield* store.signPut(path, { contentType, sizeBytes, expiresAt: expiresAt ?? (yield* inAnHour) })
  })

const readAll = (path: string) =>
  Effect.flatMap(BlobStore, (store) =>
    Stream.runCollect(store.read(path)).pipe(Effect.map((chunks) => Buffer.concat(Chunk.toArray(chunks))))
  )

const stat = (path: string) => Effect.flatMap(BlobStore, (store) => store.stat(path))

const expectRefused = (answer: Answer) => {
  expect(answer.status, answer.body).toBeGreaterThanOrEqual(400)
  expect(answer.status, answer.body).toBeLessThan(500)
}

/** Refused, nothing stored, no partial body left. */
const expectNothingStored = (path: string) =>
  Effect.gen(function* () {
    expect(yield* stat(path)).toEqual(Option.none())
    expect(yield* (yield* TestStore).partials).toEqual([])
  })

describeEachStore("BlobStore", (it) => {
  it.effect("a signed PUT stores the bytes: stat, read back, remove", () =>
    Effect.gen(function* () {
      const path = freshPath()
      const body = randomBody(300 * 1024 + 17)
      const ticket = yield* sign(path, "audio/mpeg", body.byteLength)
      const answer = yield* put({ url: ticket.url, headers: { "content-type": "audio/mpeg" }, body })
      expect(answer.status, answer.body).toBe(200)
      expect(yield* stat(path)).toEqual(
        Option.some({ sizeBytes: body.byteLength, contentType: "audio/mpeg" })
      )
      expect(Buffer.compare(yield* readAll(path), Buffer.from(body))).toBe(0)
      yield* Effect.flatMap(BlobStore, (store) => store.remove(path))
      expect(yield* stat(path)).toEqual(Option.none())
      const missing = yield* Effect.flip(readAll(path))
      expect(missing).toEqual(new BlobMissing({ path }))
    })
  )

  it.effect("the ticket names the store's bucket, the path and the expiry; its token is in the URL", () =>
    Effect.gen(function* () {
      const store = yield* BlobStore
      const path = freshPath()
      const expiresAt = yield* inAnHour
      const ticket: PutTicket = yield* sign(path, "video/mp4", 10, expiresAt)
      expect(ticket.bucket).toBe(store.bucket)
      expect(ticket.path).toBe(path)
      expect(ticket.expiresAt).toEqual(expiresAt)
      expect(ticket.token.length).toBeGreaterThan(20)
      expect(ticket.url).toContain(ticket.token)
      expect(new URL(ticket.url).protocol).toBe("http:")
    })
  )

  it.effect("an empty object (0 bytes) round-trips", () =>
    Effect.gen(function* () {
      const path = freshPath("empty")
      const ticket = yield* sign(path, "audio/wav", 0)
      const answer = yield* put({
        url: ticket.url,
        headers: { "content-type": "audio/wav" },
        body: new Uint8Array()
      })
      expect(answer.status, answer.body).toBe(200)
      expect(yield* stat(path)).toEqual(Option.some({ sizeBytes: 0, contentType: "audio/wav" }))
      expect((yield* readAll(path)).byteLength).toBe(0)
    })
  )

  it.effect("a PUT with another Content-Type, or none, is refused and stores nothing", () =>
    Effect.gen(function* () {
      const path = freshPath()
      const body = randomBody(1000)
      const ticket = yield* sign(path, "audio/mpeg", body.byteLength)
      for (const headers of [{ "content-type": "audio/wav" }, { "content-type": "audio/mpeg; x=1" }, {}]) {
        expectRefused(yield* put({ url: ticket.url, headers, body }))
        yield* expectNothingStored(path)
      }
    })
  )

  it.effect("a body longer than signed is refused and stores nothing", () =>
    Effect.gen(function* () {
      const path = freshPath()
      const ticket = yield* sign(path, "audio/mpeg", 1000)
      expectRefused(
        yield* put({ url: ticket.url, headers: { "content-type": "audio/mpeg" }, body: randomBody(1001) })
      )
      yield* expectNothingStored(path)
    })
  )

  it.effect("a body shorter than signed is refused and stores nothing", () =>
    Effect.gen(function* () {
      const path = freshPath()
      const ticket = yield* sign(path, "audio/mpeg", 1000)
      expectRefused(
        yield* put({ url: ticket.url, headers: { "content-type": "audio/mpeg" }, body: randomBody(999) })
      )
      yield* expectNothingStored(path)
    })
  )

  it.effect("a chunked body (no Content-Length) longer or shorter than signed is refused", () =>
    Effect.gen(function* () {
      const path = freshPath()
      const ticket = yield* sign(path, "audio/mpeg", 1000)
      for (const size of [1500, 400]) {
        expectRefused(
          yield* put({
            url: ticket.url,
            headers: { "content-type": "audio/mpeg" },
            body: randomBody(size),
            chunked: true
          })
        )
        yield* expectNothingStored(path)
      }
    })
  )

  it.effect("an expired URL is refused and stores nothing", () =>
    Effect.gen(function* () {
      const path = freshPath()
      const body = randomBody(100)
      const past = DateTime.subtract(yield* DateTime.now, { minutes: 1 })
      const ticket = yield* sign(path, "audio/mpeg", body.byteLength, past)
      expectRefused(yield* put({ url: ticket.url, headers: { "content-type": "audio/mpeg" }, body }))
      yield* expectNothingStored(path)
    })
  )

  it.effect("a URL used again before it expires replaces the object with the same terms", () =>
    Effect.gen(function* () {
      const path = freshPath()
      const first = randomBody(500)
      const second = randomBody(500)
      const ticket = yield* sign(path, "audio/ogg", 500)
      for (const body of [first, second]) {
        const answer = yield* put({ url: ticket.url, headers: { "content-type": "audio/ogg" }, body })
        expect(answer.status, answer.body).toBe(200)
      }
      expect(Buffer.compare(yield* readAll(path), Buffer.from(second))).toBe(0)
    })
  )

  it.effect("missing objects: stat gives none, read fails with BlobMissing, remove succeeds", () =>
    Effect.gen(function* () {
      const store = yield* BlobStore
      const path = freshPath("never")
      expect(yield* store.stat(path)).toEqual(Option.none())
      expect(yield* Effect.flip(readAll(path))).toEqual(new BlobMissing({ path }))
      yield* store.remove(path)
      // A prefix of stored paths is not an object either.
      const stored = freshPath()
      const ticket = yield* sign(stored, "audio/mpeg", 3)
      yield* put({ url: ticket.url, headers: { "content-type": "audio/mpeg" }, body: randomBody(3) })
      const folder = stored.split("/").slice(0, 2).join("/")
      expect(yield* store.stat(folder)).toEqual(Option.none())
      yield* store.remove(folder)
      expect(Option.isSome(yield* store.stat(stored))).toBe(true)
    })
  )

  it.effect("paths that break the rules are refused by every operation", () =>
    Effect.gen(function* () {
      const store = yield* BlobStore
      const terms = { contentType: "audio/mpeg", sizeBytes: 1, expiresAt: yield* inAnHour }
      for (const path of [
        "",
        "../x",
        "uploads/../../x",
        "/etc/passwd",
        "a//b",
        "a/./b",
        "a/",
        ".hidden",
        "a\\b",
        "a b"
      ]) {
        const failures = [
          yield* Effect.flip(store.signPut(path, terms)),
          yield* Effect.flip(store.stat(path)),
          yield* Effect.flip(store.remove(path)),
          yield* Effect.flip(Stream.runDrain(store.read(path)))
        ]
        for (const failure of failures) expect(failure, path).toBeInstanceOf(BlobStoreError)
      }
    })
  )

  it.effect(
    "terms that cannot be signed are refused: not a media type, a size that is not a whole number",
    () =>
      Effect.gen(function* () {
        const store = yield* BlobStore
        const expiresAt = yield* inAnHour
        const bad = [
          { contentType: "audio", sizeBytes: 1 },
          { contentType: "audio/mpeg\r\nx-evil: 1", sizeBytes: 1 },
          { contentType: " audio/mpeg", sizeBytes: 1 },
          { contentType: "audio/mpeg", sizeBytes: -1 },
          { contentType: "audio/mpeg", sizeBytes: 1.5 },
          { contentType: "audio/mpeg", sizeBytes: Number.NaN }
        ]
        for (const terms of bad) {
          const result = yield* Effect.either(store.signPut(freshPath(), { ...terms, expiresAt }))
          expect(Either.isLeft(result) && result.left, JSON.stringify(terms)).toBeInstanceOf(BlobStoreError)
        }
      })
  )

  it.effect("a large object streams back intact", () =>
    Effect.gen(function* () {
      const path = freshPath("large")
      const body = randomBody(3 * 1024 * 1024 + 5)
      const ticket = yield* sign(path, "video/mp4", body.byteLength)
      const answer = yield* put({ url: ticket.url, headers: { "content-type": "video/mp4" }, body })
      expect(answer.status, answer.body).toBe(200)
      let chunks = 0
      const bytes = yield* Effect.flatMap(BlobStore, (store) =>
        Stream.runCollect(store.read(path).pipe(Stream.tap(() => Effect.sync(() => chunks++))))
      )
      expect(chunks).toBeGreaterThan(1)
      expect(Buffer.compare(Buffer.concat(Chunk.toArray(bytes)), Buffer.from(body))).toBe(0)
      yield* Effect.flatMap(BlobStore, (store) => store.remove(path))
    }).pipe(Effect.timeout(Duration.seconds(30)))
  )
})

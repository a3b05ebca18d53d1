/**
 * The upload use cases on the test wiring: an upload is registered with a signed PUT for exactly its
 * declared terms, completed once its file is in storage, and its file is swept when nobody needs it
 * any more (unconsumed past its expiry: record and file; consumed: the file, once its job ended).
 * Runs on the TestClock (it starts at the epoch) so expiry can be reached.
 */
import { expect, layer } from "@effect/vitest"
import {
  AccountAdmin,
  BlobStore,
  defaultUploadPace,
  Jobs,
  MediaUploads,
  makeMediaUploads,
  putTimeMillis,
  SignedPutReceiver,
  UploadPace,
  Uploads
} from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { DateTime, Deferred, Duration, Effect, Fiber, Option, Stream, TestClock } from "effect"
import { asTimePasses, testJob } from "../../src/testing.js"
import { useCasesLayer } from "./support.js"

const bytes = new Uint8Array(1_000).fill(7)

const arrange = Effect.gen(function* () {
  const admin = yield* AccountAdmin
  const account = yield* admin
    .createAccount({ name: "uploader", plan: "pro", credits: 10 })
    .pipe(Effect.orDie)
  const uploads = yield* MediaUploads
  const created = yield* uploads
    .create(
      account,
      new Api.UploadCreateRequest({
        filename: "a.wav",
        mime_type: "audio/wav",
        size_bytes: 1_000,
        duration_sec: 3
      })
    )
    .pipe(Effect.orDie)
  const receiver = yield* SignedPutReceiver
  const put = (body: Uint8Array) =>
    receiver.receive({
      token: created.token,
      contentType: "audio/wav",
      contentLength: body.length,
      body: Stream.make(body)
    })
  /** The same PUT through the use case, as the server's route makes it. */
  const send = (body: Stream.Stream<Uint8Array>) =>
    uploads.receive({ token: created.token, contentType: "audio/wav", contentLength: 1_000, body })
  return { account, uploads, created, put, send }
})

const stored = (path: string) =>
  Effect.flatMap(BlobStore, (blobs) => Effect.map(blobs.stat(path), Option.isSome))

layer(useCasesLayer(), { timeout: "60 seconds" })("MediaUploads", (it) => {
  it.effect(
    "complete needs the file in storage with the declared size; a second complete answers the same",
    () =>
      Effect.gen(function* () {
        const { account, uploads, created, put } = yield* arrange
        const early = yield* Effect.flip(uploads.complete(account, created.upload_id))
        expect(early).toMatchObject({ code: "invalid_request" })
        yield* put(bytes).pipe(Effect.orDie)
        const done = yield* uploads.complete(account, created.upload_id).pipe(Effect.orDie)
        expect(done).toMatchObject({ status: "uploaded", filename: "a.wav", duration_sec: 3 })
        expect(yield* uploads.complete(account, created.upload_id).pipe(Effect.orDie)).toEqual(done)
      })
  )

  it.effect("a signed PUT with other terms is refused and leaves nothing", () =>
    Effect.gen(function* () {
      const { created, put } = yield* arrange
      const refused = yield* Effect.flip(put(bytes.subarray(0, 10)))
      expect(refused._tag).toBe("PutRejected")
      expect(yield* stored(created.path)).toBe(false)
    })
  )

  it.effect(
    "never completed: the record and file go once the URL and its PUT time are over; uploaded: 24 hours after completion",
    () =>
      Effect.gen(function* () {
        const first = yield* arrange
        const second = yield* arrange
        yield* first.put(bytes).pipe(Effect.orDie)
        yield* second.put(bytes).pipe(Effect.orDie)
        yield* second.uploads.complete(second.account, second.created.upload_id).pipe(Effect.orDie)
        yield* first.uploads.sweep
        expect(yield* stored(first.created.path)).toBe(true)

        // An hour for the URL, then the PUT time of 1,000 bytes (the one-minute floor).
        yield* TestClock.adjust(Duration.minutes(60))
        yield* first.uploads.sweep
        expect(yield* stored(first.created.path)).toBe(true)
        yield* TestClock.adjust(Duration.minutes(1))
        // The suite shares one database: other tests' uploads may be swept too.
        expect(yield* first.uploads.sweep).toBeGreaterThanOrEqual(1)
        expect(yield* stored(first.created.path)).toBe(false)
        const gone = yield* Effect.flip(first.uploads.complete(first.account, first.created.upload_id))
        expect(gone).toMatchObject({ code: "not_found" })
        expect(yield* stored(second.created.path)).toBe(true)

        yield* TestClock.adjust(Duration.hours(24))
        expect(yield* second.uploads.sweep).toBeGreaterThanOrEqual(1)
        expect(yield* stored(second.created.path)).toBe(false)
      })
  )

  it.effect(
    "the signed URL takes bytes only while the upload waits: 409 once completed, 410 once expired or swept",
    () =>
      Effect.gen(function* () {
        const { account, uploads, created, send } = yield* arrange
        yield* send(Stream.make(bytes))
        yield* uploads.complete(account, created.upload_id)
        const again = yield* Effect.flip(send(Stream.make(new Uint8Array(1_000).fill(9))))
        expect(again).toMatchObject({ code: "conflict", details: { refusal: "completed" } })

        // A body still arriving when its upload is completed is not kept either.
        const other = yield* arrange
        const midway = Stream.concat(
          Stream.make(bytes.subarray(0, 500)),
          Stream.fromEffect(
            other
              .put(bytes)
              .pipe(
                Effect.zipRight(other.uploads.complete(other.account, other.created.upload_id)),
                Effect.orDie,
                Effect.as(new Uint8Array(500).fill(9))
              )
          )
        )
        const late = yield* Effect.flip(other.send(midway))
        expect(late).toMatchObject({ code: "conflict", details: { refusal: "completed" } })
        const blobs = yield* BlobStore
        const kept = yield* Stream.runCollect(blobs.read(other.created.path)).pipe(Effect.orDie)
        expect([...kept].flatMap((chunk) => [...chunk])).toEqual([...bytes])

        const third = yield* arrange
        yield* TestClock.adjust(Duration.minutes(60))
        const expired = yield* Effect.flip(third.send(Stream.make(bytes)))
        expect(expired).toMatchObject({ code: "gone", details: { refusal: "expired" } })
        yield* TestClock.adjust(Duration.minutes(1))
        yield* third.uploads.sweep
        expect(yield* stored(third.created.path)).toBe(false)
      })
  )

  it.effect("a body slower than its size at the minimum rate answers 408 and keeps nothing", () =>
    Effect.gen(function* () {
      const { created, send } = yield* arrange
      const stalled = Stream.concat(Stream.make(bytes.subarray(0, 10)), Stream.never)
      const fiber = yield* Effect.fork(Effect.flip(send(stalled)))
      // 1,000 bytes at the default 512 KiB/s: the one-minute floor. The clock moves until the PUT
      // is refused: one adjust could come before the PUT's wait has begun (it then waited forever).
      const refused = yield* asTimePasses(
        Fiber.join(fiber),
        Duration.millis(putTimeMillis(defaultUploadPace, 1_000) / 4)
      )
      expect(refused).toMatchObject({
        code: "request_timeout",
        details: { refusal: "too_slow", limit_ms: 60_000 }
      })
      expect(yield* stored(created.path)).toBe(false)
    })
  )

  it.effect(
    "a file stored again for an ended upload (a late S3 PUT) is swept once the PUT window closes, whatever its marks",
    () =>
      Effect.gen(function* () {
        const { account, uploads, created, put } = yield* arrange
        yield* put(bytes).pipe(Effect.orDie)
        yield* uploads.complete(account, created.upload_id)
        // Consumed by a job that has ended.
        const job = yield* testJob({ accountId: account.id })
        const jobs = yield* Jobs
        yield* jobs.insert({ ...job, status: "failed", error: "ended" })
        const records = yield* Uploads
        expect(yield* records.consume(created.upload_id, job.id, yield* DateTime.now)).toBe(true)
        yield* uploads.sweep
        expect(yield* stored(created.path)).toBe(false)
        // The store takes the URL again, as a presigned S3 URL does until it expires (core is not asked).
        yield* put(bytes).pipe(Effect.orDie)
        yield* uploads.sweep
        expect(yield* stored(created.path)).toBe(true)
        // Once no PUT can land any more (the hour of the URL and the PUT time of its size), it goes.
        yield* TestClock.adjust(Duration.minutes(61))
        yield* uploads.sweep
        expect(yield* stored(created.path)).toBe(false)
      })
  )
  it.effect(
    "a body that slows below the minimum rate is cut with 408 at the end of that window, long before its deadline, and keeps nothing",
    () =>
      Effect.gen(function* () {
        // 10 bytes a second held over every second: 1,000 bytes may take 100 s in all.
        const pace = { minBytesPerSecond: 10, floorMillis: 1_000 }
        const uploads = yield* makeMediaUploads.pipe(Effect.provideService(UploadPace, pace))
        const { account } = yield* arrange
        const created = yield* uploads
          .create(
            account,
            new Api.UploadCreateRequest({
              filename: "b.wav",
              mime_type: "audio/wav",
              size_bytes: 1_000,
              duration_sec: 3
            })
          )
          .pipe(Effect.orDie)
        const started = yield* TestClock.currentTimeMillis
        // A fast start (500 bytes at once), then 5 bytes a second: under the rate from the second window on.
        const trickle = Stream.concat(
          Stream.make(bytes.subarray(0, 500)),
          Stream.repeatEffect(Effect.as(Effect.sleep(Duration.seconds(1)), bytes.subarray(0, 5)))
        )
        const send = (body: Stream.Stream<Uint8Array>) =>
          uploads.receive({ token: created.token, contentType: "audio/wav", contentLength: 1_000, body })
        const refused = yield* asTimePasses(Effect.flip(send(trickle)), Duration.millis(250))
        expect(refused).toMatchObject({
          code: "request_timeout",
          details: { refusal: "too_slow", window_ms: 1_000, min_bytes_per_second: 10 }
        })
        expect((yield* TestClock.currentTimeMillis) - started).toBeLessThan(10_000)
        expect(yield* stored(created.path)).toBe(false)

        // The same file well above the rate all along (10 bytes every 100 ms, after the same start) is
        // kept. The clock moves in small steps: it moves while the store writes for real, and a
        // window must not pass whole while one write is under way on a busy machine.
        const steady = Stream.concat(
          Stream.make(bytes.subarray(0, 500)),
          Stream.repeatEffect(Effect.as(Effect.sleep(Duration.millis(100)), bytes.subarray(0, 10))).pipe(
            Stream.take(50)
          )
        )
        yield* asTimePasses(send(steady))
        expect(yield* stored(created.path)).toBe(true)
      })
  )

  it.effect(
    "one PUT per signed URL at a time: a second while the first is in progress is 409 put_in_progress; once it ended, the URL takes a PUT again",
    () =>
      Effect.gen(function* () {
        const { created, send } = yield* arrange
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const held = Stream.concat(
          Stream.fromEffect(Effect.as(Deferred.succeed(started, undefined), bytes.subarray(0, 10))),
          Stream.fromEffect(Effect.as(Deferred.await(release), bytes.subarray(10)))
        )
        const first = yield* Effect.fork(send(held))
        // The first PUT's body is being read: the URL is taken.
        yield* Deferred.await(started)
        const second = yield* Effect.flip(send(Stream.make(bytes)))
        expect(second).toMatchObject({ code: "conflict", details: { refusal: "put_in_progress" } })
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(first)
        expect(yield* stored(created.path)).toBe(true)
        // Not completed yet: a PUT again replaces the file.
        yield* send(Stream.make(bytes))
      })
  )

  it.effect(
    "an account past its plan's uploads in flight is refused 429 naming the quota; past its bytes stored, 413",
    () =>
      Effect.gen(function* () {
        const admin = yield* AccountAdmin
        const uploads = yield* MediaUploads
        const free = yield* admin.createAccount({ name: "free", plan: "free", credits: 0 }).pipe(Effect.orDie)
        const request = (size_bytes: number) =>
          new Api.UploadCreateRequest({
            filename: "c.wav",
            mime_type: "audio/wav",
            size_bytes,
            duration_sec: 3
          })
        // The free plan: 2 uploads in flight, 2 GiB stored.
        yield* uploads.create(free, request(1_000))
        yield* uploads.create(free, request(1_000))
        const third = yield* Effect.flip(uploads.create(free, request(1_000)))
        expect(third).toMatchObject({
          code: "rate_limit_exceeded",
          details: { quota: "uploads_in_flight", limit: 2, in_flight: 2 }
        })
        expect(third.message).toContain("free plan allows 2 uploads in flight")

        const other = yield* admin
          .createAccount({ name: "free2", plan: "free", credits: 0 })
          .pipe(Effect.orDie)
        yield* uploads.create(other, request(2 * 1024 * 1024 * 1024 - 1))
        const over = yield* Effect.flip(uploads.create(other, request(2)))
        expect(over).toMatchObject({
          code: "request_too_large",
          details: { quota: "upload_bytes_stored", limit: 2 * 1024 * 1024 * 1024, size_bytes: 2 }
        })
        // Exactly at the quota is allowed.
        yield* uploads.create(other, request(1))
      })
  )
})

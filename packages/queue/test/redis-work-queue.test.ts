/**
 * What only the Redis queue faces: processes that die with an item in hand, several processes on
 * one lane, Redis losing its keys or dropping connections mid-run. Runs when `REDIS_URL` is set, and
 * always under `CI=true` (where a missing `REDIS_URL` fails it).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it, layer } from "@effect/vitest"
import { QueueError, type WorkItem, WorkQueue } from "@verbatim/core"
import { Context, Deferred, Duration, Effect, Exit, Layer, Option, Queue, Redacted, Stream } from "effect"
import { Redis } from "ioredis"
import { RedisConnection, RedisWorkQueue } from "../src/index.js"
import {
  drained,
  eventually,
  freshLane,
  inCi,
  redisOnly,
  redisUrl,
  TestQueue,
  testConnection
} from "./harness.js"

const url = Option.getOrElse(redisUrl, () => Redacted.make(""))
const packageDir = fileURLToPath(new URL("..", import.meta.url))
const fixture = fileURLToPath(new URL("./fixtures/stalling-consumer.ts", import.meta.url))

/** Lines a child process writes, as a stream. */
const linesOf = (child: ChildProcess): Stream.Stream<string> =>
  Stream.async<string>((emit) => {
    let buffer = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8")
      const lines = buffer.split("\n")
      buffer = lines.pop() ?? ""
      for (const line of lines) void emit.single(line)
    })
    child.on("exit", () => void emit.end())
  })

const waitForLine = (lines: Queue.Queue<string>, wanted: string) =>
  Queue.take(lines).pipe(
    Effect.repeat({ until: (line) => line === wanted }),
    Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => new Error(`no "${wanted}" line`) })
  )

const lockMs = 1_000

// Live clock: Redis and BullMQ keep real time (locks, stall checks), and consumers run as child processes.
describe.runIf(Option.isSome(redisUrl) || inCi)("RedisWorkQueue", () => {
  layer(redisOnly.layer({ lockDurationMs: lockMs, stalledIntervalMs: 500 }), {
    timeout: "60 seconds",
    excludeTestServices: true
  })("processes and Redis failing", (it) => {
    it.scoped(
      "an item whose process died is delivered again after the stall timeout",
      () =>
        Effect.gen(function* () {
          const queue = yield* WorkQueue
          const kit = yield* TestQueue
          const lane = freshLane("stall")
          const child = yield* Effect.acquireRelease(
            Effect.sync(() =>
              spawn(process.execPath, ["--conditions=@verbatim/source", "--import", "tsx", fixture], {
                cwd: packageDir,
                env: {
                  ...process.env,
                  REDIS_URL: Redacted.value(url),
                  QUEUE_PREFIX: kit.prefix,
                  QUEUE_LANE: lane,
                  LOCK_MS: String(lockMs)
                },
                stdio: ["ignore", "pipe", "inherit"]
              })
            ),
            (child) => Effect.sync(() => child.kill("SIGKILL"))
          )
          const lines = yield* Queue.unbounded<string>()
          yield* Effect.forkScoped(Stream.runForEach(linesOf(child), (line) => Queue.offer(lines, line)))
          yield* waitForLine(lines, "ready")

          yield* queue.offer([{ lane, id: "job-1", accountId: "a" }])
          yield* waitForLine(lines, "started job-1")
          const exited = Effect.async<void>((resume) => {
            child.once("exit", () => resume(Effect.void))
          })
          child.kill("SIGKILL")
          yield* exited
          const killedAt = Date.now()
          expect(yield* queue.depth(lane)).toEqual({ waiting: 0, delayed: 0, active: 1 })

          const again = yield* Deferred.make<WorkItem>()
          yield* queue.consume(lane, { concurrency: 1 }, (item) => Deferred.succeed(again, item))
          const item = yield* Deferred.await(again).pipe(
            Effect.timeoutFail({
              duration: Duration.seconds(20),
              onTimeout: () => new Error("not redelivered")
            })
          )
          expect(item).toEqual({ lane, id: "job-1", accountId: "a", key: "job-1" })
          // Not while the dead worker's lock still held: it renewed every half lock, so at least half
          // of it was left when the process died (less a little for timer slack).
          expect(Date.now() - killedAt).toBeGreaterThanOrEqual(lockMs / 2 - 100)
          yield* drained(lane)
        }),
      60_000
    )

    it.scoped(
      "two processes on one lane deliver every item once",
      () =>
        Effect.gen(function* () {
          const kit = yield* TestQueue
          const lane = freshLane("pair")
          const seen = yield* Queue.unbounded<string>()
          const handler = (item: WorkItem) =>
            Queue.offer(seen, item.id).pipe(Effect.zipRight(Effect.sleep(Duration.millis(2))))
          // Each "process" has its own connection and queue.
          const processLayer = (name: string) =>
            RedisWorkQueue.layer({ prefix: kit.prefix, lockDurationMs: lockMs, stalledIntervalMs: 500 }).pipe(
              Layer.provide(testConnection(url, name))
            )
          // Built in the test's scope, so the "process" lives until the test ends.
          const consumeIn = (name: string) =>
            Effect.flatMap(Layer.build(processLayer(name)), (context) =>
              Context.get(context, WorkQueue).consume(lane, { concurrency: 4 }, handler)
            )
          yield* consumeIn("process-1")
          yield* consumeIn("process-2")
          const queue = yield* WorkQueue
          const ids = Array.from({ length: 200 }, (_, i) => `item-${i}`)
          yield* queue.offer(ids.map((id, i) => ({ lane, id, accountId: `account-${i % 7}` })))
          const delivered = yield* Effect.forEach(ids, () => Queue.take(seen))
          yield* drained(lane)
          yield* Effect.sleep(Duration.millis(200))
          expect(yield* Queue.size(seen)).toBe(0)
          expect([...delivered].sort()).toEqual([...ids].sort())
        }),
      30_000
    )

    it.scoped(
      "after its keys are flushed mid-run, later offers are still delivered",
      () =>
        Effect.gen(function* () {
          const queue = yield* WorkQueue
          const kit = yield* TestQueue
          const lane = freshLane("flush")
          const seen = yield* Queue.unbounded<string>()
          const release = yield* Deferred.make<void>()
          yield* queue.consume(lane, { concurrency: 2 }, (item) =>
            Queue.offer(seen, item.id).pipe(
              Effect.zipRight(item.id === "in-hand" ? Deferred.await(release) : Effect.void)
            )
          )
          yield* queue.offer([{ lane, id: "before", accountId: "a" }])
          expect(yield* Queue.take(seen)).toBe("before")
          yield* queue.offer([{ lane, id: "in-hand", accountId: "a" }])
          expect(yield* Queue.take(seen)).toBe("in-hand")
          yield* queue.offer([{ lane, id: "lost", accountId: "a", delayMs: 60_000 }])

          // Every key of this suite vanishes (a FLUSHDB limited to our prefix).
          yield* kit.flush
          expect(yield* queue.depth(lane)).toEqual({ waiting: 0, delayed: 0, active: 0 })
          // The handler in hand finishes after its job vanished: the consumer must survive that.
          yield* Deferred.succeed(release, undefined)
          yield* Effect.sleep(Duration.millis(100))

          yield* queue.offer([
            { lane, id: "after-1", accountId: "a" },
            { lane, id: "after-2", accountId: "b" },
            { lane, id: "in-hand", accountId: "a" }
          ])
          const after = yield* Effect.forEach(Array.from({ length: 3 }), () => Queue.take(seen)).pipe(
            Effect.timeoutFail({
              duration: Duration.seconds(20),
              onTimeout: () => new Error("wedged after flush")
            })
          )
          expect([...after].sort()).toEqual(["after-1", "after-2", "in-hand"])
          yield* drained(lane)
        }),
      30_000
    )

    it.scoped(
      "a job whose hash outlived its state (keys lost in part) does not refuse its key: offered again, it runs",
      () =>
        Effect.gen(function* () {
          const queue = yield* WorkQueue
          const kit = yield* TestQueue
          const lane = freshLane("orphan")
          const seen = yield* Queue.unbounded<string>()
          yield* queue.consume(lane, { concurrency: 2 }, (item) => Queue.offer(seen, item.id))
          // Delayed, so its job waits in the lane's delayed set; then that set is lost, its hash not.
          yield* queue.offer([{ lane, id: "orphan", accountId: "a", delayMs: 60_000 }])
          const client = yield* Effect.acquireRelease(
            Effect.sync(() => new Redis(Redacted.value(url))),
            (client) => Effect.promise(() => client.quit())
          )
          const keyOf = (suffix: string) => `${kit.prefix}q:${lane}:${suffix}`
          expect(yield* Effect.promise(() => client.exists(keyOf(RedisWorkQueue.jobIdOf("orphan"))))).toBe(1)
          expect(yield* Effect.promise(() => client.del(keyOf("delayed")))).toBe(1)
          // A duplicate while its job is held is still refused: this one is delayed too, and lost with it.
          yield* queue.offer([{ lane, id: "held", accountId: "a", delayMs: 60_000 }])
          yield* queue.offer([{ lane, id: "held", accountId: "a" }])
          expect(yield* queue.depth(lane)).toEqual({ waiting: 0, delayed: 1, active: 0 })

          yield* queue.offer([{ lane, id: "orphan", accountId: "a" }])
          const item = yield* Queue.take(seen).pipe(
            Effect.timeoutFail({
              duration: Duration.seconds(20),
              onTimeout: () => new Error("orphan refused")
            })
          )
          expect(item).toBe("orphan")
        }),
      30_000
    )

    it.scoped(
      "after its connections are dropped, the consumer reconnects and later offers are delivered",
      () =>
        Effect.gen(function* () {
          const queue = yield* WorkQueue
          const kit = yield* TestQueue
          const lane = freshLane("drop")
          const seen = yield* Queue.unbounded<string>()
          yield* queue.consume(lane, { concurrency: 2 }, (item) => Queue.offer(seen, item.id))
          yield* queue.offer([{ lane, id: "before", accountId: "a" }])
          expect(yield* Queue.take(seen)).toBe("before")

          // The shared connection and the worker's blocking one.
          expect(yield* kit.dropConnections).toBeGreaterThanOrEqual(2)
          yield* queue.offer([
            { lane, id: "after-1", accountId: "a" },
            { lane, id: "after-2", accountId: "b" }
          ])
          const after = yield* Effect.forEach(Array.from({ length: 2 }), () => Queue.take(seen)).pipe(
            Effect.timeoutFail({
              duration: Duration.seconds(30),
              onTimeout: () => new Error("wedged after drop")
            })
          )
          expect([...after].sort()).toEqual(["after-1", "after-2"])
          // And again, once more, for a worker that was blocked while idle.
          yield* Effect.sleep(Duration.millis(300))
          expect(yield* kit.dropConnections).toBeGreaterThanOrEqual(2)
          yield* Effect.sleep(Duration.millis(300))
          yield* queue.offer([{ lane, id: "later", accountId: "c" }])
          expect(
            yield* Queue.take(seen).pipe(
              Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => new Error("wedged") })
            )
          ).toBe("later")
        }),
      60_000
    )

    it.scoped(
      "closing a consumer while Redis reconnects does not hang, and still waits for its handler",
      () =>
        Effect.gen(function* () {
          const queue = yield* WorkQueue
          const kit = yield* TestQueue
          const lane = freshLane("close")
          const started = yield* Deferred.make<void>()
          let finished = false
          yield* Effect.scoped(
            Effect.gen(function* () {
              yield* queue.consume(lane, { concurrency: 1 }, () =>
                Deferred.succeed(started, undefined).pipe(
                  Effect.zipRight(Effect.sleep(Duration.millis(300))),
                  Effect.zipRight(Effect.sync(() => (finished = true)))
                )
              )
              yield* queue.offer([{ lane, id: "slow", accountId: "a" }])
              yield* Deferred.await(started)
              // BullMQ's own close would wait forever for its reconnecting blocking connection.
              expect(yield* kit.dropConnections).toBeGreaterThanOrEqual(2)
            })
          )
          expect(finished).toBe(true)
          // The queue still works for a new consumer (which may see "slow" again: at least once).
          const seen = yield* Queue.unbounded<string>()
          yield* queue.consume(lane, { concurrency: 1 }, (item) => Queue.offer(seen, item.id))
          yield* queue.offer([{ lane, id: "next", accountId: "a" }])
          yield* Queue.take(seen).pipe(
            Effect.repeat({ until: (id) => id === "next" }),
            Effect.timeoutFail({
              duration: Duration.seconds(20),
              onTimeout: () => new Error("wedged after close")
            })
          )
        }),
      60_000
    )

    it.scoped(
      "keys live under the prefix: BullMQ's under <prefix>q:<lane>, fairness under <prefix>fair:<lane>",
      () =>
        Effect.gen(function* () {
          const queue = yield* WorkQueue
          const kit = yield* TestQueue
          const client = yield* RedisConnection
          const lane = freshLane("keys")
          yield* queue.offer([{ lane, id: "job:with:colons", accountId: "a", delayMs: 60_000 }])
          const keys = yield* Effect.promise(() => client.keys(`${kit.prefix}*${lane}*`))
          expect(keys.every((key) => key.startsWith(kit.prefix))).toBe(true)
          expect(keys).toContain(`${kit.prefix}fair:${lane}`)
          expect(keys).toContain(`${kit.prefix}q:${lane}:${RedisWorkQueue.jobIdOf("job:with:colons")}`)
          yield* eventually(Effect.map(queue.depth(lane), (depth) => depth.delayed === 1))
        }).pipe(Effect.provide(testConnection(url, "keys")))
    )
  })

  it.live("offers and depth reads fail with QueueError, instead of hanging, when Redis does not answer", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // Nothing listens on port 1: commands wait in ioredis' offline queue (maxRetriesPerRequest: null).
        const nowhere = yield* Effect.acquireRelease(
          Effect.sync(
            () => new Redis("redis://127.0.0.1:1", { lazyConnect: true, maxRetriesPerRequest: null })
          ),
          (client) => Effect.sync(() => client.disconnect())
        )
        nowhere.on("error", () => {})
        const queue = yield* RedisWorkQueue.make({
          prefix: "unreachable:",
          operationTimeout: "300 millis"
        }).pipe(Effect.provideService(RedisConnection, nowhere))
        const offered = yield* Effect.exit(queue.offer([{ lane: "l", id: "x", accountId: "a" }]))
        expect(
          Exit.isFailure(offered) && offered.cause._tag === "Fail" && offered.cause.error
        ).toBeInstanceOf(QueueError)
        const depth = yield* Effect.exit(queue.depth("l"))
        expect(Exit.isFailure(depth)).toBe(true)
      })
    ).pipe(Effect.timeout("10 seconds"))
  )
})

import { describe, expect, it } from "@effect/vitest"
import { AddressResolver } from "@verbatim/core"
import { Effect, Exit, Layer } from "effect"
import { NodeAddressResolver } from "../src/index.js"

const resolveWith = (layer: Layer.Layer<AddressResolver>, host: string) =>
  Effect.flatMap(AddressResolver, (r) => r.resolve(host)).pipe(Effect.provide(layer), Effect.exit)

// Live clock: the system resolver (getaddrinfo) answers in real time.
describe("NodeAddressResolver", () => {
  it.live("resolves localhost through the system resolver (/etc/hosts, no network)", () =>
    Effect.gen(function* () {
      const exit = yield* resolveWith(NodeAddressResolver.layer, "localhost")
      expect(Exit.isSuccess(exit)).toBe(true)
      if (Exit.isSuccess(exit)) {
        expect(exit.value.length).toBeGreaterThan(0)
        expect(exit.value.every((a) => a === "127.0.0.1" || a === "::1")).toBe(true)
      }
    })
  )

  it.live("returns every address, in the resolver's order", () =>
    Effect.gen(function* () {
      const layer = Layer.succeed(
        AddressResolver,
        NodeAddressResolver.make({
          lookup: async () => [
            { address: "2001:4860:4860::8888", family: 6 },
            { address: "8.8.8.8", family: 4 }
          ]
        })
      )
      expect(yield* resolveWith(layer, "dns.test")).toEqual(Exit.succeed(["2001:4860:4860::8888", "8.8.8.8"]))
    })
  )

  it.live("a failed lookup is a typed ResolveFailed naming the host and the reason", () =>
    Effect.gen(function* () {
      const layer = Layer.succeed(
        AddressResolver,
        NodeAddressResolver.make({
          lookup: async (host) => {
            throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" })
          }
        })
      )
      const exit = yield* resolveWith(layer, "nowhere.test")
      expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined).toMatchObject(
        {
          _tag: "ResolveFailed",
          host: "nowhere.test",
          reason: "getaddrinfo ENOTFOUND nowhere.test"
        }
      )
    })
  )

  it.live("an empty answer and a lookup that hangs are ResolveFailed too", () =>
    Effect.gen(function* () {
      const empty = Layer.succeed(AddressResolver, NodeAddressResolver.make({ lookup: async () => [] }))
      const hanging = Layer.succeed(
        AddressResolver,
        NodeAddressResolver.make({ lookup: () => new Promise(() => {}), timeoutMs: 50 })
      )
      const a = yield* resolveWith(empty, "empty.test")
      const b = yield* resolveWith(hanging, "slow.test")
      for (const [exit, reason] of [
        [a, "no addresses"],
        [b, "no answer within 50 ms"]
      ] as const) {
        expect(
          Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
        ).toMatchObject({
          _tag: "ResolveFailed",
          reason
        })
      }
    })
  )
})

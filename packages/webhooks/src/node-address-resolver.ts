/**
 * The `AddressResolver` port on the system resolver (`dns.promises.lookup` with `all: true`, so
 * `/etc/hosts` and the machine's resolver configuration apply, as they do when the sender
 * connects). A lookup that fails, answers nothing or takes longer than `timeoutMs` is a typed
 * `ResolveFailed`.
 */
import { AddressResolver, ResolveFailed } from "@verbatim/core"
import { Effect, Layer } from "effect"
import { describeError, type Lookup, systemLookup } from "./lookup.js"

/** How long a lookup may take before the name counts as not resolving. */
export const defaultTimeoutMs = 5_000

export interface Options {
  /** The resolver to ask (tests pass a fixed one); the system resolver by default. */
  readonly lookup?: Lookup
  readonly timeoutMs?: number
}

export const make = (options: Options = {}): AddressResolver["Type"] => {
  const lookup = options.lookup ?? systemLookup
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs
  return {
    resolve: (host) =>
      Effect.tryPromise({
        try: () => lookup(host),
        catch: (error) => new ResolveFailed({ host, reason: describeError(error) })
      }).pipe(
        Effect.timeoutFail({
          duration: timeoutMs,
          onTimeout: () => new ResolveFailed({ host, reason: `no answer within ${timeoutMs} ms` })
        }),
        Effect.flatMap((entries) =>
          entries.length === 0
            ? Effect.fail(new ResolveFailed({ host, reason: "no addresses" }))
            : Effect.succeed(entries.map((entry) => entry.address))
        ),
        Effect.withSpan("NodeAddressResolver.resolve", { attributes: { "webhook.host": host } })
      )
  }
}

export const layer: Layer.Layer<AddressResolver> = Layer.succeed(AddressResolver, make())

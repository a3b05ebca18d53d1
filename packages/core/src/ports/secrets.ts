/** Randomness and hashing, kept behind a port so core imports no crypto library. */
import { Context, type Effect } from "effect"

export class Secrets extends Context.Tag("@verbatim/core/Secrets")<
  Secrets,
  {
    /** A fresh random uuid (v4). */
    readonly uuid: Effect.Effect<string>
    /** A fresh API key: a fixed prefix and at least 256 bits of randomness. */
    readonly newApiKey: Effect.Effect<string>
    /** The stored form of an API key: a one-way hash (hex). */
    readonly hashApiKey: (key: string) => Effect.Effect<string>
  }
>() {}

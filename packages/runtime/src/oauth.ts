/** The PKCE S256 hash of core's OAuth server, on node's crypto. */
import { createHash } from "node:crypto"
import { PkceHash } from "@verbatim/core"
import { Effect, Layer } from "effect"

export const PkceHashLive = Layer.succeed(PkceHash, (verifier: string) =>
  Effect.sync(() => createHash("sha256").update(verifier, "ascii").digest("base64url"))
)

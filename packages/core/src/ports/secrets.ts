/** Randomness and hashing, kept behind a port so core imports no crypto library. */
import { Context, type Effect, type Redacted } from "effect"

/** Every API key starts with this, so a key is recognisable in logs and secret scanners. */
export const apiKeyPrefix = "vbt_"

/** Whether a string has the shape of an API key; anything else is refused before any lookup. */
export const looksLikeApiKey = (value: string): boolean =>
  value.startsWith(apiKeyPrefix) && /^[A-Za-z0-9_-]{24,128}$/.test(value)

/** Every webhook signing secret starts with this (the Standard Webhooks format: `whsec_` + base64). */
export const webhookSecretPrefix = "whsec_"

export class Secrets extends Context.Tag("@verbatim/core/Secrets")<
  Secrets,
  {
    /** A fresh random uuid (v4). */
    readonly uuid: Effect.Effect<string>
    /** A fresh API key: `apiKeyPrefix` and at least 256 bits of randomness, base64url. */
    readonly newApiKey: Effect.Effect<string>
    /** The stored form of an API key: a one-way hash (hex). */
    readonly hashApiKey: (key: string) => Effect.Effect<string>
    /** A fresh webhook signing secret: `webhookSecretPrefix` and base64 of 32 random bytes. */
    readonly newWebhookSecret: Effect.Effect<Redacted.Redacted>
  }
>() {}

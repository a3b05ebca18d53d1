/** Arbitrary mode requests: every field present or absent, with valid, blank and invalid values. */
import { Arbitrary, FastCheck as fc } from "effect"
import { LegacySource, Mode } from "../../src/mode/mode.js"
import type { ModeContext, ModeRequest } from "../../src/mode/resolve.js"

export const mode = Arbitrary.make(Mode)
export const legacySource = Arbitrary.make(LegacySource)

export const blank = fc.constantFrom("", " ", "\t\n ")
export const someText = fc.oneof(
  fc.constantFrom("dQw4w9WgXcQ", "https://youtu.be/dQw4w9WgXcQ", "5f0c0e4e-2b1a-4a57-9b7e-0d1f3c1b2a10"),
  fc.string({ minLength: 1 }).filter((s) => s.trim().length > 0)
)
export const validWebhook = fc.oneof(
  fc.constantFrom("https://example.com/hook", "http://hooks.example.org:8080/a?b=c"),
  fc.webUrl({ validSchemes: ["http", "https"] })
)
export const invalidWebhook = fc.constantFrom(
  "not a url",
  "ftp://example.com/x",
  "mailto:a@example.com",
  "/relative"
)
export const webhook = fc.oneof(validWebhook, invalidWebhook, blank)

const maybe = <A>(arb: fc.Arbitrary<A>): fc.Arbitrary<A | undefined> => fc.option(arb, { nil: undefined })

/** Any combination of the fields, each absent, undefined or any value. */
export const anyModeRequest: fc.Arbitrary<ModeRequest> = fc.record(
  {
    video: maybe(fc.oneof(someText, blank)),
    upload_id: maybe(fc.oneof(someText, blank)),
    mode: maybe(mode),
    source: maybe(legacySource),
    allow_asr: maybe(fc.boolean()),
    webhook_url: maybe(webhook)
  },
  { requiredKeys: [] }
)

/** One input, and either mode, or legacy fields, or neither: the requests that often resolve. */
export const likelyModeRequest: fc.Arbitrary<ModeRequest> = fc
  .record({
    input: fc.oneof(
      someText.map((video): ModeRequest => ({ video })),
      someText.map((upload_id): ModeRequest => ({ upload_id }))
    ),
    choice: fc.oneof(
      mode.map((m): ModeRequest => ({ mode: m })),
      fc
        .record({ source: legacySource, allow_asr: fc.boolean() }, { requiredKeys: [] })
        .map((legacy): ModeRequest => legacy),
      fc.constant<ModeRequest>({})
    ),
    webhook: fc.oneof(
      validWebhook.map((webhook_url): ModeRequest => ({ webhook_url })),
      webhook.map((webhook_url): ModeRequest => ({ webhook_url })),
      fc.constant<ModeRequest>({})
    )
  })
  .map(({ choice, input, webhook }) => ({ ...input, ...choice, ...webhook }))

export const modeRequest: fc.Arbitrary<ModeRequest> = fc.oneof(anyModeRequest, likelyModeRequest)

export const modeContext: fc.Arbitrary<ModeContext> = fc.record({
  kind: fc.constantFrom("transcribe" as const, "batch" as const),
  accountDefault: mode
})

export const isPresent = (value: string | undefined): boolean =>
  value !== undefined && value.trim().length > 0

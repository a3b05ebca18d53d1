import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer, Redacted } from "effect"
import { AssemblyAiConfig, defaultSettings } from "../src/config.js"
import * as AssemblyAiSpeechToText from "../src/engine.js"

const read = (env: Record<string, string>) =>
  Effect.withConfigProvider(AssemblyAiConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("AssemblyAiConfig", () => {
  it.effect("has the documented defaults; only the key is required", () =>
    Effect.gen(function* () {
      const { apiKey, ...rest } = yield* read({ ASSEMBLYAI_API_KEY: " secret-key " })
      expect(Redacted.value(apiKey)).toBe("secret-key")
      expect(String(apiKey)).not.toContain("secret")
      expect(rest).toEqual(defaultSettings)
      expect(defaultSettings.piiPolicies).toEqual([
        "person_name",
        "phone_number",
        "email_address",
        "credit_card_number",
        "us_social_security_number"
      ])
    })
  )

  it.effect("reads every variable", () =>
    Effect.gen(function* () {
      const s = yield* read({
        ASSEMBLYAI_API_KEY: "k",
        ASSEMBLYAI_BASE_URL: "https://api.eu.assemblyai.com/",
        ASSEMBLYAI_PII_POLICIES: "person_name, location,,person_name",
        ASSEMBLYAI_PII_SUBSTITUTION: "entity_type",
        ASSEMBLYAI_SPEECH_MODELS: "universal-3-5-pro, universal-2",
        ASSEMBLYAI_SUMMARY_TYPE: "bullets",
        ASSEMBLYAI_POLL_INTERVAL_MS: "1000",
        ASSEMBLYAI_TIMEOUT_MS: "60000",
        ASSEMBLYAI_REQUEST_TIMEOUT_MS: "5000",
        ASSEMBLYAI_RETRIES: "0",
        ASSEMBLYAI_RETRY_BASE_MS: "100",
        ASSEMBLYAI_UPLOAD_BUFFER_MB: "0"
      })
      expect([
        s.baseUrl,
        s.piiPolicies,
        s.piiSubstitution,
        s.speechModels,
        s.summaryType,
        Duration.toMillis(s.pollInterval),
        Duration.toMillis(s.timeout),
        Duration.toMillis(s.requestTimeout),
        s.retries,
        Duration.toMillis(s.retryBase),
        s.uploadBufferBytes
      ]).toEqual([
        "https://api.eu.assemblyai.com",
        ["person_name", "location"],
        "entity_type",
        ["universal-3-5-pro", "universal-2"],
        "bullets",
        1000,
        60000,
        5000,
        0,
        100,
        0
      ])
    })
  )

  it.effect.each([
    [{}, "ASSEMBLYAI_API_KEY"],
    [{ ASSEMBLYAI_API_KEY: "  " }, "ASSEMBLYAI_API_KEY"],
    [{ ASSEMBLYAI_API_KEY: "k", ASSEMBLYAI_BASE_URL: "api.assemblyai.com" }, "ASSEMBLYAI_BASE_URL"],
    [{ ASSEMBLYAI_API_KEY: "k", ASSEMBLYAI_PII_POLICIES: "person_name,names" }, "ASSEMBLYAI_PII_POLICIES"],
    [{ ASSEMBLYAI_API_KEY: "k", ASSEMBLYAI_SUMMARY_TYPE: "gist" }, "ASSEMBLYAI_SUMMARY_TYPE"],
    [{ ASSEMBLYAI_API_KEY: "k", ASSEMBLYAI_POLL_INTERVAL_MS: "1" }, "ASSEMBLYAI_POLL_INTERVAL_MS"],
    [{ ASSEMBLYAI_API_KEY: "k", ASSEMBLYAI_RETRIES: "11" }, "ASSEMBLYAI_RETRIES"]
  ] as const)("refuses %o naming %s", ([env, name]) =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(read(env))
      expect(String(error)).toContain(name)
    })
  )

  it.effect("layerConfig fails to build without a key", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Layer.build(AssemblyAiSpeechToText.layerConfig).pipe(
          Effect.scoped,
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
        )
      )
      expect(String(error)).toContain("ASSEMBLYAI_API_KEY")
    })
  )
})

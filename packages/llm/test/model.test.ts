import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Option, Schema } from "effect"
import { Llm, LlmConfig, LlmError, layer } from "../src/index.js"
import { json, LlmStandIn, layerWithStandIn, serverError, standIn } from "../src/testing.js"

const Answer = Schema.Struct({ words: Schema.Array(Schema.String) })

const ask = Effect.flatMap(Llm, (llm) =>
  llm.generateObject({
    name: "Answer",
    schema: Answer,
    system: "Split into words.",
    prompt: "hello big world"
  })
)

const splitter = layerWithStandIn(
  { respond: (request) => json({ words: request.prompt.split(" ") }), apiKey: "sk-test" },
  { retries: 2 }
)

// Live clock: the model is the Responses API stand-in, a real HTTP server on a local port.
describe("Llm over the stand-in Responses API", () => {
  it.live("decodes a structured answer and sends the model, the system text and the key", () =>
    Effect.gen(function* () {
      const answer = yield* ask
      expect(answer.words).toEqual(["hello", "big", "world"])
      const server = yield* LlmStandIn
      expect(server.requests).toHaveLength(1)
      const [request] = server.requests
      expect(request?.model).toBe("stand-in")
      expect(request?.system).toBe("Split into words.")
      expect(request?.authorization).toBe("Bearer sk-test")
      // structured output asks for a JSON schema named after the object
      expect(request?.body.text).toMatchObject({ format: { type: "json_schema", name: "Answer" } })
    }).pipe(Effect.provide(splitter))
  )

  it.live("retries failed answers and answers when a later attempt succeeds", () =>
    Effect.gen(function* () {
      const server = yield* LlmStandIn
      server.inject(2, serverError)
      const answer = yield* ask
      expect(answer.words).toEqual(["hello", "big", "world"])
      expect(server.requests).toHaveLength(3)
    }).pipe(Effect.provide(splitter))
  )

  it.live("a reply that does not fit the schema is retried, then fails as LlmError", () =>
    Effect.gen(function* () {
      const result = yield* Effect.either(ask)
      const server = yield* LlmStandIn
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) {
        expect(result.left).toBeInstanceOf(LlmError)
        expect(result.left.retryable).toBe(true)
      }
      expect(server.requests).toHaveLength(3)
    }).pipe(Effect.provide(layerWithStandIn({ respond: () => json({ nope: 1 }) }, { retries: 2 })))
  )

  it.live("a 401 is not retried", () =>
    Effect.gen(function* () {
      const server = yield* standIn({ respond: () => json({ words: [] }), apiKey: "right" })
      const result = yield* Effect.either(
        ask.pipe(Effect.provide(layer(server.settings({ apiKey: Option.none(), retries: 3 }))))
      )
      expect(Either.isLeft(result) && result.left.status).toBe(401)
      expect(server.requests).toHaveLength(0)
    }).pipe(Effect.scoped)
  )

  it.live("a slow answer runs into the time limit and is retried", () =>
    Effect.gen(function* () {
      const server = yield* standIn({ respond: () => json({ words: ["late"] }) })
      server.inject(1, { delayMs: 2_000, reply: json({ words: ["slow"] }) })
      const answer = yield* ask.pipe(
        Effect.provide(layer(server.settings({ timeout: Duration.millis(300), retries: 1 })))
      )
      expect(answer.words).toEqual(["late"])
      expect(server.requests).toHaveLength(2)
    }).pipe(Effect.scoped)
  )
})

describe("LlmConfig", () => {
  const read = (env: Record<string, string>) =>
    Effect.withConfigProvider(LlmConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))
  it.effect("no model configured is none; a model gives settings with a trimmed URL and a redacted key", () =>
    Effect.gen(function* () {
      expect(Option.isNone(yield* read({}))).toBe(true)
      const settings = yield* read({
        VERBATIM_AI_MODEL: "llama3.2",
        VERBATIM_AI_BASE_URL: "http://127.0.0.1:11434/v1/",
        VERBATIM_AI_API_KEY: "sk-secret"
      })
      expect(Option.map(settings, (s) => [s.model, s.baseUrl])).toEqual(
        Option.some(["llama3.2", "http://127.0.0.1:11434/v1"])
      )
      expect(String(Option.getOrThrow(Option.getOrThrow(settings).apiKey))).not.toContain("sk-secret")
    })
  )
  it.effect("a bad base URL is refused naming the variable", () =>
    Effect.gen(function* () {
      const result = yield* Effect.either(read({ VERBATIM_AI_MODEL: "m", VERBATIM_AI_BASE_URL: "ftp:/x" }))
      expect(Either.isLeft(result) && String(result.left)).toContain("VERBATIM_AI_BASE_URL")
    })
  )
})

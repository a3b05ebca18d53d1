/**
 * What `tools/list` gives a client, read through the official SDK client from the server
 * `makeServer` builds: every tool's input schema is accepted by each model vendor's published
 * rules (`vendor-rules.ts`), and the whole listing, which every conversation pays for, stays under
 * 25,000 bytes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { AccountOperations, type Operations } from "../src/operations.js"
import { makeServer } from "../src/server.js"
import { breaches, vendorRules } from "./vendor-rules.js"

/** Operations that listing never calls: any call is a defect of the test. */
const unused = new Proxy({} as Operations, {
  get: (_target, name) => () => Effect.dieMessage(`listing called the operation ${String(name)}`)
})

const listed = Effect.gen(function* () {
  const server = yield* makeServer.pipe(Effect.provideService(AccountOperations, unused))
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: "listing-test", version: "1.0.0" })
  yield* Effect.promise(() => server.connect(serverSide))
  yield* Effect.promise(() => client.connect(clientSide))
  const result = yield* Effect.promise(() => client.listTools())
  yield* Effect.promise(() => client.close())
  return result
})

describe("tools/list through the SDK client", () => {
  it.effect("every tool's input schema passes every vendor's rules", () =>
    Effect.gen(function* () {
      const { tools } = yield* listed
      expect(tools.length).toBeGreaterThan(10)
      for (const rules of vendorRules) {
        for (const tool of tools) {
          expect(breaches(rules, tool.inputSchema), `${rules.vendor}: ${tool.name}`).toEqual([])
        }
      }
    })
  )

  it("the rules refuse what the vendors refuse", () => {
    const gemini = vendorRules.find((rules) => rules.vendor.startsWith("Gemini"))
    const anthropic = vendorRules.find((rules) => rules.vendor === "Anthropic")
    if (gemini === undefined || anthropic === undefined) throw new Error("rules missing")
    // get_credits' schema as Effect first made it: `{}`, a union at the top.
    expect(breaches(anthropic, { type: "object", anyOf: [{ type: "object" }, { type: "array" }] })).toEqual([
      "top-level anyOf"
    ])
    expect(
      breaches(gemini, {
        type: "object",
        properties: {
          a: { $ref: "#/$defs/A" },
          b: { type: "string", format: "uri", examples: ["x"] },
          c: { type: "integer", exclusiveMinimum: 0 },
          d: { anyOf: [{ type: "string" }, { type: "null" }] }
        },
        additionalProperties: false
      })
    ).toEqual([
      "additionalProperties at (top)",
      "$ref at a",
      "examples at b",
      "format uri at b",
      "exclusiveMinimum at c",
      'type "null" at d.anyOf[1]'
    ])
  })

  it.effect("is under 25,000 bytes, every tool and input field described", () =>
    Effect.gen(function* () {
      const result = yield* listed
      const bytes = Buffer.byteLength(JSON.stringify(result), "utf8")
      expect(bytes).toBeLessThan(25_000)
      for (const tool of result.tools as ReadonlyArray<Tool>) {
        expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40)
        for (const [name, field] of Object.entries(tool.inputSchema.properties ?? {})) {
          expect((field as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy()
        }
      }
    })
  )

  it.effect("names asr_options in full once, and by reference where other tools take it", () =>
    Effect.gen(function* () {
      const { tools } = yield* listed
      const asr = (name: string) =>
        tools.find((tool) => tool.name === name)?.inputSchema.properties?.asr_options as {
          description: string
          properties: Record<string, { description?: string; type?: string }>
        }
      const full = asr("transcribe_video")
      expect(Object.values(full.properties).filter((field) => field.description).length).toBeGreaterThan(5)
      for (const name of ["estimate_cost", "run_batch"]) {
        const named = asr(name)
        expect(named.description).toContain("transcribe_video's asr_options")
        // Every field and its type stays; the words are on transcribe_video.
        expect(Object.keys(named.properties)).toEqual(Object.keys(full.properties))
        expect(named.properties.speakerLabels).toEqual({ type: "boolean" })
      }
    })
  )
})

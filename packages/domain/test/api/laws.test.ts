/**
 * Laws over every exported schema of api/ and error/, found by walking the module namespaces, so a
 * schema added later is covered without touching this file.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc, JSONSchema, Schema } from "effect"
import * as Api from "../../src/api/index.js"
import * as Errors from "../../src/error/index.js"

type AnySchema = Schema.Schema<unknown, unknown>

const exported: ReadonlyArray<readonly [string, AnySchema]> = Object.entries({ ...Api, ...Errors }).flatMap(
  ([name, value]) => (Schema.isSchema(value) ? [[name, value as AnySchema] as const] : [])
)

/** Encode, send as JSON, decode, encode again: what a value looks like after a trip over HTTP. */
const overTheWire = (schema: AnySchema, encoded: unknown) =>
  Schema.decodeUnknownEither(schema)(JSON.parse(JSON.stringify(encoded)))

describe("every exported api schema", () => {
  it("is found by walking the namespaces", () => {
    const names = exported.map(([name]) => name)
    for (const name of ["TranscribeRequest", "TranscribeResponse", "ErrorBody", "ApiError", "ThemesState"]) {
      expect(names).toContain(name)
    }
    expect(exported.length).toBeGreaterThan(90)
  })

  describe.each(exported)("%s", (name, schema) => {
    const encode = Schema.encodeSync(schema)

    it("decodes its own encoding back to a value with the same encoding", () => {
      fc.assert(
        fc.property(Arbitrary.make(schema), (value) => {
          const encoded = encode(value)
          const decoded = Schema.decodeUnknownEither(schema)(encoded)
          expect(Either.isRight(decoded)).toBe(true)
          if (Either.isRight(decoded)) {
            expect(Schema.is(schema)(decoded.right)).toBe(true)
            expect(encode(decoded.right)).toStrictEqual(encoded)
          }
        }),
        { numRuns: 50 }
      )
    })

    it("survives a trip through JSON", () => {
      fc.assert(
        fc.property(Arbitrary.make(schema), (value) => {
          const encoded = encode(value)
          const decoded = overTheWire(schema, encoded)
          expect(Either.isRight(decoded)).toBe(true)
          if (Either.isRight(decoded)) {
            expect(JSON.stringify(encode(decoded.right))).toBe(JSON.stringify(encoded))
          }
        }),
        { numRuns: 50 }
      )
    })

    it("is named after its export in JSON Schema (and so in the OpenAPI document)", () => {
      const document = JSONSchema.make(schema) as { readonly $ref?: string; readonly $defs?: object }
      expect(document.$ref).toBe(`#/$defs/${name}`)
    })
  })
})

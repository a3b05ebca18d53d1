/** The one string rule: every string of an input holding NUL is found, at its path; nothing else is. */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import {
  boundedParams,
  maxParamFields,
  nulIssues,
  paramFields,
  surrogateMessage,
  unstorable
} from "../../src/api/index.js"

const withoutNul = fc.jsonValue().filter((value) => !JSON.stringify(value).includes("\\u0000"))

/** Puts a NUL into the string at a random place of a JSON value (or the value itself); its path. */
const plant = (
  value: unknown,
  choice: number,
  path: Array<string | number> = []
): [unknown, Array<string | number>] => {
  if (Array.isArray(value) && value.length > 0) {
    const index = choice % value.length
    const [inner, at] = plant(value[index], Math.floor(choice / 7), [...path, index])
    return [value.map((item, i) => (i === index ? inner : item)), at]
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value)
    if (keys.length > 0) {
      const key = keys[choice % keys.length] ?? ""
      const [inner, at] = plant((value as Record<string, unknown>)[key], Math.floor(choice / 7), [
        ...path,
        key
      ])
      return [Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === key ? inner : v])), at]
    }
  }
  return [`${typeof value === "string" ? value : ""}\u0000`, path]
}

describe("the NUL rule", () => {
  it("finds nothing in an input without NUL", () => {
    fc.assert(
      fc.property(withoutNul, (value) => {
        expect(nulIssues(value)).toEqual([])
      })
    )
  })

  it("finds the one string holding NUL, at its path, however deep", () => {
    fc.assert(
      fc.property(withoutNul, fc.nat(), (value, choice) => {
        const [planted, path] = plant(value, choice)
        expect(nulIssues(planted)).toEqual([{ path, message: expect.any(String) }])
        const refused = unstorable(planted)
        expect(refused?.code).toBe("invalid_request")
        expect(refused?.details.issues).toEqual([{ path, message: expect.any(String) }])
      })
    )
  })

  it("names a key holding NUL, and every string holding it", () => {
    expect(nulIssues({ "a\u0000": 1, b: ["x", "\u0000"], c: { d: "e\u0000" } }).map((i) => i.path)).toEqual([
      ["a\u0000"],
      ["b", 1],
      ["c", "d"]
    ])
    expect(unstorable({ video: "ok" })).toBeUndefined()
    expect(unstorable({ filename: "a\u0000b" })?.message).toBe(
      "filename must not contain the NUL character (\\u0000)"
    )
  })

  it("names an unpaired surrogate, high or low, in a value or a key; a pair is text", () => {
    const input = { a: "x\ud800", b: ["\udc00y", "😀", "\ud83d\ude00"], "k\udfff": 1, c: "\ude00\ud83d" }
    expect(nulIssues(input)).toEqual([
      { path: ["a"], message: surrogateMessage },
      { path: ["b", 0], message: surrogateMessage },
      { path: ["k\udfff"], message: `its name ${surrogateMessage}` },
      { path: ["c"], message: surrogateMessage }
    ])
    expect(unstorable({ video_ids: ["\ud800"] })?.message).toBe(`video_ids.0 ${surrogateMessage}`)
  })

  it("refuses a string exactly when it is not well-formed UTF-16", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "\ud800", "\udbff", "\udc00", "\udfff", "é"), { maxLength: 12 }),
        (parts) => {
          const text = parts.join("")
          const wellFormed = !/[\ud800-\udfff]/.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ""))
          expect(nulIssues(text).length === 0).toBe(wellFormed)
        }
      )
    )
  })

  it("reads a query string's fields by name, a repeated name as a list", () => {
    const fields = paramFields(new URLSearchParams("page=1&status=a&status=%00&__proto__=x"))
    expect(fields).toEqual({ page: "1", status: ["a", "\u0000"], ["__proto__"]: "x" })
    expect(nulIssues(fields).map((i) => i.path)).toEqual([["status", 1]])
  })

  it("walks a nesting far deeper than any body accepted, without recursion", () => {
    let deep: unknown = "\u0000"
    for (let i = 0; i < 1_000_000; i++) deep = [deep]
    expect(nulIssues(deep)[0]?.path).toHaveLength(1_000_000)
  })
})

/** The plain reading of a form: every pair, a repeated name's values in order (quadratic, small inputs only). */
const referenceFields = (text: string): Record<string, unknown> => {
  const fields: Record<string, Array<string>> = {}
  for (const [name, value] of new URLSearchParams(text)) {
    fields[name] = [...(Object.hasOwn(fields, name) ? (fields[name] ?? []) : []), value]
  }
  return Object.fromEntries(
    Object.entries(fields).map(([name, values]) => [name, values.length === 1 ? values[0] : values])
  )
}

/** Query-like text: short names and values from a small alphabet, with `&`, `=`, `%`, `+` among them. */
const formText = fc
  .array(fc.constantFrom("a", "b", "x", "=", "&", "&", "%", "2", "0", "+", "\u00e9", "_"), { maxLength: 80 })
  .map((chars) => chars.join(""))

describe("bounded query strings and forms", () => {
  it("reads any input as the plain reading does, within the field bound", () => {
    fc.assert(
      fc.property(formText, (text) => {
        const read = boundedParams(text)
        expect(Either.isRight(read)).toBe(true)
        if (Either.isRight(read)) {
          expect(read.right).toEqual(Array.from(new URLSearchParams(text)))
          expect(paramFields(read.right)).toEqual(referenceFields(text))
        }
      })
    )
  })

  it("counts fields as the plain reading does: refused exactly past the bound", () => {
    fc.assert(
      fc.property(formText, fc.integer({ min: 0, max: 12 }), (text, limit) => {
        const fields = Array.from(new URLSearchParams(text)).length
        expect(Either.isLeft(boundedParams(text, limit))).toBe(fields > limit)
      })
    )
  })

  it("refuses 50,000 repeated fields with 400 naming the bound; the bound itself is read", () => {
    const refused = boundedParams("x&".repeat(50_000))
    expect(Either.isLeft(refused) && refused.left).toMatchObject({
      code: "invalid_request",
      status: 400,
      details: { max_fields: maxParamFields }
    })
    const atBound = boundedParams("x&".repeat(maxParamFields))
    expect(Either.isRight(atBound) && paramFields(atBound.right)).toEqual({
      x: Array.from({ length: maxParamFields }, () => "")
    })
  })

  it("reads 100,000 values of one name in linear time (the list is not copied per value)", () => {
    const pairs = Array.from({ length: 100_000 }, (_, i) => ["x", String(i)] as const)
    const fields = paramFields(pairs) as { x: Array<string> }
    expect(fields.x).toHaveLength(100_000)
    expect(fields.x[99_999]).toBe("99999")
  })
})

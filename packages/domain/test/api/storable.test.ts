/** The one string rule: every string of an input holding NUL is found, at its path; nothing else is. */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { nulIssues, paramFields, unstorable } from "../../src/api/index.js"

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
      "filename: must not contain the NUL character (\\u0000)"
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

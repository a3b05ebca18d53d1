/**
 * Request arbitraries for properties over real HTTP (the fuzz test, the hot routes' equivalence
 * test): query strings (random and repeated keys, unicode, huge numbers, broken percent-encoding),
 * URL-encoded path segments, and request bodies of every wrong shape; strings holding NUL, numbers
 * past what the database counts and dates past what it holds, in queries and bodies alike.
 */
import { Asr } from "@verbatim/domain"
import { FastCheck as fc } from "effect"
import { unknownUuid, videos } from "./support.js"

/**
 * The longest query string the properties send. Node refuses a request head over 16 KiB before the
 * application sees it; that case has its own test in the fuzz test.
 */
export const maxQueryLength = 8000

const asrFields = Object.keys(Asr.AsrOptions.fields)

export const unicode = fc.string({ unit: "binary", maxLength: 40 })

/** A string with the NUL character somewhere (PostgreSQL text cannot store it). */
export const withNul = fc
  .tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }))
  .map(([before, after]) => `${before}\u0000${after}`)

/** Whole numbers at and past the edges of what JavaScript and PostgreSQL count exactly. */
export const edgeNumbers = fc.oneof(
  fc.constantFrom(
    2 ** 31 - 1,
    2 ** 31,
    2 ** 53 - 1,
    2 ** 53,
    2 ** 63,
    -(2 ** 53),
    10_000_000,
    10_000_001,
    1e21,
    1e308
  ),
  fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER })
)

/** Dates a JavaScript `Date` reads that the database cannot hold, and the edges of those it can. */
export const extremeDates = fc.constantFrom(
  "-271821-04-20T00:00:00Z",
  "+275760-09-13T00:00:00Z",
  "-004714-11-23T00:00:00Z",
  "+294277-01-01T00:00:00Z",
  "0000-01-01T00:00:00Z",
  "0001-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "+010000-01-01T00:00:00Z",
  "1969-12-31T23:59:59.999Z"
)

const hugeNumbers = fc.oneof(
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double().map(String),
  edgeNumbers.map(String),
  fc.constantFrom("1e309", "-1e309", "9007199254740993", "NaN", "Infinity", "-0", "0x10", "1_000", "٣")
)
export const plausibleValues = fc.constantFrom(
  "",
  "0",
  "1",
  "2",
  "50",
  "100",
  "101",
  "-1",
  "1.5",
  " 1",
  "true",
  "false",
  "TRUE",
  "yes",
  "null",
  "en",
  "de",
  "pt-BR",
  "EN",
  "zz",
  "manual",
  "auto",
  "asr",
  "json",
  "srt",
  "vtt",
  "txt",
  "completed",
  "processing",
  "failed",
  "succeeded",
  "queued",
  "requires_asr_confirmation",
  "2024-01-01T00:00:00Z",
  "2024-13-45",
  unknownUuid,
  videos.manualAndAuto,
  "coordination"
)
const queryValue = fc.oneof(
  { weight: 4, arbitrary: plausibleValues },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: unicode },
  { weight: 2, arbitrary: hugeNumbers },
  { weight: 1, arbitrary: withNul },
  { weight: 1, arbitrary: extremeDates },
  { weight: 1, arbitrary: fc.string({ minLength: 200, maxLength: 2000 }) }
)

const queryKey = (params: ReadonlyArray<string>) =>
  params.length === 0
    ? fc.oneof(fc.string({ maxLength: 12 }), unicode, fc.constantFrom("page", "limit", "format", "__proto__"))
    : fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...params) },
        { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
        { weight: 1, arbitrary: unicode },
        { weight: 1, arbitrary: withNul },
        { weight: 1, arbitrary: fc.constantFrom("constructor", "__proto__", "page[]", "a.b") }
      )

/** A query string: encoded pairs (keys repeat often), or a hand-broken raw one. */
export const queryString = (params: ReadonlyArray<string>) =>
  fc
    .oneof(
      {
        weight: 6,
        arbitrary: fc.array(fc.tuple(queryKey(params), queryValue), { maxLength: 6 }).map((pairs) => {
          const search = new URLSearchParams()
          for (const [key, value] of pairs) search.append(key, value)
          return search.toString()
        })
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "%",
          "%zz",
          "limit=%E0%A4%A",
          "&&&",
          "=",
          "==1",
          "limit=1&limit=2",
          "page=1;limit=2",
          "limit[]=1",
          "format=srt&format=vtt",
          "include_segments",
          "include_segments=",
          "search=%00",
          "page=9007199254740991",
          "page=10000000&limit=100",
          "date_from=-271821-04-20T00:00:00Z",
          "date_to=%2B275760-09-13T00:00:00Z",
          "status=%00&status=completed",
          "language=%F0%9F%98%80"
        )
      }
    )
    .filter((query) => query.length <= maxQueryLength)

/** Path segments, URL-encoded; `dotSegments` adds those that fetch resolves to another path (`.`, `..`, empty). */
export const pathSegment = (dotSegments: boolean) =>
  fc
    .oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          videos.manualAndAuto,
          videos.multiLanguage,
          videos.noCaptions,
          unknownUuid,
          "Xb2-vCw5NsD"
        )
      },
      { weight: 2, arbitrary: fc.uuid() },
      { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
      { weight: 2, arbitrary: unicode },
      { weight: 1, arbitrary: fc.string({ minLength: 60, maxLength: 400 }) },
      { weight: 1, arbitrary: fc.constantFrom(".", "..", "%", "%2F", "a/b", " ", "\u0000", "null", "-1") }
    )
    .map(encodeURIComponent)
    .filter((segment) => dotSegments || !["", ".", ".."].includes(segment))

const anyJsonText = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.anything().map((value) => JSON.stringify(value) ?? "")
)

/** A value of the wrong type (or the right type, sometimes) for any field. */
const fieldValue = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: plausibleValues },
  { weight: 1, arbitrary: withNul },
  { weight: 1, arbitrary: edgeNumbers },
  { weight: 1, arbitrary: extremeDates },
  { weight: 1, arbitrary: fc.array(fc.oneof(withNul, fc.string({ maxLength: 10 })), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 3000, maxLength: 20000 }) },
  { weight: 1, arbitrary: fc.constantFrom(1e308, -1, 0, 2 ** 53 + 1, 21, 201, -0.5, true, null, [], {}) }
)

const bodyObject = fc.record(
  {
    video: fc.oneof(fc.constantFrom(videos.manualAndAuto, videos.noCaptions, videos.unknown), fieldValue),
    upload_id: fc.oneof(fc.uuid(), fieldValue),
    mode: fc.oneof(
      fc.constantFrom("auto", "captions_only", "human_captions_only", "speech_to_text_only"),
      fieldValue
    ),
    language: fieldValue,
    source: fc.oneof(fc.constantFrom("auto", "manual", "asr"), fieldValue),
    allow_asr: fc.oneof(fc.boolean(), fieldValue),
    format: fc.oneof(
      fc.record(
        { timestamp: fieldValue, paragraphs: fieldValue, words: fieldValue, extra: fieldValue },
        { requiredKeys: [] }
      ),
      fieldValue
    ),
    webhook_url: fc.oneof(fc.webUrl(), fieldValue),
    asr_options: fc.oneof(
      fc.dictionary(fc.constantFrom(...asrFields), fieldValue, { maxKeys: 6 }),
      fieldValue
    ),
    ids: fc.oneof(fc.array(fc.oneof(fc.uuid(), fieldValue), { maxLength: 5 }), fieldValue),
    video_ids: fc.oneof(
      fc.array(fc.oneof(fc.constantFrom(videos.manualAndAuto, videos.noCaptions), fieldValue), {
        maxLength: 4
      }),
      fieldValue
    ),
    filename: fc.oneof(fc.constantFrom("talk.wav"), withNul, fieldValue),
    mime_type: fc.oneof(fc.constantFrom("audio/wav", "video/mp4"), fieldValue),
    size_bytes: fc.oneof(fc.integer({ min: 1, max: 2 ** 31 }), edgeNumbers, fieldValue),
    duration_sec: fc.oneof(fc.integer({ min: 1, max: 28_800 }), edgeNumbers, fieldValue),
    extra: fieldValue,
    "key\u0000": fieldValue
  },
  { requiredKeys: [] }
)

/** Valid requests of the endpoints that store what they are sent (uploads, transcribe, batch). */
const validBodies: ReadonlyArray<Record<string, unknown>> = [
  { filename: "talk.wav", mime_type: "audio/wav", size_bytes: 1000, duration_sec: 60 },
  { video: videos.manualAndAuto, webhook_url: "https://example.com/hook" },
  { video_ids: [videos.manualAndAuto], webhook_url: "https://example.com/hook" }
]

/** A valid request with one field's value made to hold NUL, or a number or date past the database's. */
const validButOneField = fc
  .tuple(fc.constantFrom(...validBodies), fc.nat(), fc.oneof(withNul, edgeNumbers, extremeDates))
  .map(([body, index, value]) => {
    const keys = Object.keys(body)
    const key = keys[index % keys.length] ?? "video"
    return { ...body, [key]: Array.isArray(body[key]) ? [value] : value }
  })

const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 300 }), fc.constantFrom("[", '{"a":'), fc.boolean())
  .map(([depth, open, closed]) => {
    const close = open === "[" ? "]" : "}"
    return `${open.repeat(depth)}1${closed ? close.repeat(depth) : ""}`
  })

/** A request body: JSON of the wrong shape, fields of the wrong types, deep nesting, huge or non-JSON text. */
export const bodyText = fc.oneof(
  { weight: 5, arbitrary: bodyObject.map((body) => JSON.stringify(body)) },
  { weight: 2, arbitrary: validButOneField.map((body) => JSON.stringify(body)) },
  { weight: 3, arbitrary: anyJsonText },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: fc.string({ maxLength: 50 }) },
  { weight: 1, arbitrary: unicode },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      "{",
      '{"video": "q3Lx8VbT2kA",}',
      "\uFEFF{}",
      "null",
      '{"__proto__": {"video": 1}}',
      '{"video": "q3Lx8VbT2kA", "video": 7}',
      `{"video": "${"x".repeat(1024 * 1024)}"}`
    )
  }
)

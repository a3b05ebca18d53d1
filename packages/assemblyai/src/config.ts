/**
 * The AssemblyAI engine's settings, all from environment variables. A bad value stops the start with
 * a message naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | ASSEMBLYAI_API_KEY | required | the API key, sent raw in `Authorization` (no `Bearer`) |
 * | ASSEMBLYAI_BASE_URL | https://api.assemblyai.com | the API's origin (`https://api.eu.assemblyai.com` for the EU) |
 * | ASSEMBLYAI_PII_POLICIES | person_name,phone_number,email_address,credit_card_number,us_social_security_number | what `piiRedaction` redacts (AssemblyAI's `redact_pii_policies` names, comma-separated) |
 * | ASSEMBLYAI_PII_SUBSTITUTION | hash | how redacted text reads: `hash` (`####`) or `entity_type` (`[PERSON_NAME]`) |
 * | ASSEMBLYAI_SPEECH_MODELS | unset | `speech_models` in priority order (`universal-3-5-pro,universal-2`); unset lets AssemblyAI route |
 * | ASSEMBLYAI_SUMMARY_TYPE | paragraph | `summary_type` of `summarization`: bullets, bullets_verbose, headline or paragraph |
 * | ASSEMBLYAI_POLL_INTERVAL_MS | 3000 | time between two polls of a transcript |
 * | ASSEMBLYAI_TIMEOUT_MS | 3600000 | time limit of one recognition, upload to result |
 * | ASSEMBLYAI_REQUEST_TIMEOUT_MS | 30000 | time limit of one API call (create, poll, sentences, delete) |
 * | ASSEMBLYAI_RETRIES | 4 | retries of a transient failure (429, 5xx, network error, time-out) |
 * | ASSEMBLYAI_RETRY_BASE_MS | 500 | first backoff; it doubles each retry, jittered, capped at 30 s; a longer Retry-After wins |
 * | ASSEMBLYAI_UPLOAD_BUFFER_MB | 32 | audio up to this size is held in memory so a failed upload can be retried; longer audio streams through once |
 */
import { Config, Duration, Option, Redacted } from "effect"

/** AssemblyAI's PII policy names (`redact_pii_policies`), as its API reference lists them. */
export const piiPolicies = [
  "account_number",
  "banking_information",
  "blood_type",
  "credit_card_cvv",
  "credit_card_expiration",
  "credit_card_number",
  "date",
  "date_interval",
  "date_of_birth",
  "drivers_license",
  "drug",
  "duration",
  "email_address",
  "event",
  "filename",
  "gender_sexuality",
  "healthcare_number",
  "injury",
  "ip_address",
  "language",
  "location",
  "marital_status",
  "medical_condition",
  "medical_process",
  "money_amount",
  "nationality",
  "number_sequence",
  "occupation",
  "organization",
  "passport_number",
  "password",
  "person_age",
  "person_name",
  "phone_number",
  "physical_attribute",
  "political_affiliation",
  "religion",
  "statistics",
  "time",
  "url",
  "us_social_security_number",
  "username",
  "vehicle_id",
  "zodiac_sign"
] as const
export type PiiPolicy = (typeof piiPolicies)[number]

export const defaultPiiPolicies: ReadonlyArray<PiiPolicy> = [
  "person_name",
  "phone_number",
  "email_address",
  "credit_card_number",
  "us_social_security_number"
]

export const summaryTypes = ["bullets", "bullets_verbose", "headline", "paragraph"] as const
export type SummaryType = (typeof summaryTypes)[number]

export type PiiSubstitution = "hash" | "entity_type"

export interface AssemblyAiSettings {
  readonly apiKey: Redacted.Redacted<string>
  /** The API's origin, without a trailing slash. */
  readonly baseUrl: string
  readonly piiPolicies: ReadonlyArray<PiiPolicy>
  readonly piiSubstitution: PiiSubstitution
  /** `speech_models`; empty leaves the choice to AssemblyAI. */
  readonly speechModels: ReadonlyArray<string>
  readonly summaryType: SummaryType
  readonly pollInterval: Duration.Duration
  readonly timeout: Duration.Duration
  readonly requestTimeout: Duration.Duration
  readonly retries: number
  readonly retryBase: Duration.Duration
  /** Audio up to this many bytes is buffered so its upload can be retried. */
  readonly uploadBufferBytes: number
}

/** The defaults of everything but the key, as the table above gives them. */
export const defaultSettings: Omit<AssemblyAiSettings, "apiKey"> = {
  baseUrl: "https://api.assemblyai.com",
  piiPolicies: defaultPiiPolicies,
  piiSubstitution: "hash",
  speechModels: [],
  summaryType: "paragraph",
  pollInterval: Duration.seconds(3),
  timeout: Duration.hours(1),
  requestTimeout: Duration.seconds(30),
  retries: 4,
  retryBase: Duration.millis(500),
  uploadBufferBytes: 32 * 1024 * 1024
}

/** Settings with the defaults for everything not given. */
export const settings = (
  given: { readonly apiKey: string | Redacted.Redacted<string> } & Partial<Omit<AssemblyAiSettings, "apiKey">>
): AssemblyAiSettings => ({
  ...defaultSettings,
  ...given,
  apiKey: typeof given.apiKey === "string" ? Redacted.make(given.apiKey) : given.apiKey,
  baseUrl: (given.baseUrl ?? defaultSettings.baseUrl).replace(/\/+$/, "")
})

/** Splits a comma-separated list; blank entries are ignored. */
export const splitList = (list: string): ReadonlyArray<string> =>
  list
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)

const isPiiPolicy = (s: string): s is PiiPolicy => (piiPolicies as ReadonlyArray<string>).includes(s)

const integer = (name: string, fallback: number, min: number, rule: string) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be ${rule}`, validation: (n) => n >= min }),
    Config.withDefault(fallback)
  )

const millis = (name: string, fallback: Duration.Duration, min: number) =>
  integer(name, Duration.toMillis(fallback), min, `a whole number of milliseconds, at least ${min}`).pipe(
    Config.map(Duration.millis)
  )

/** Every setting of the engine, read from the environment (see the table above). */
export const AssemblyAiConfig: Config.Config<AssemblyAiSettings> = Config.all({
  apiKey: Config.redacted("ASSEMBLYAI_API_KEY").pipe(
    Config.validate({
      message: "ASSEMBLYAI_API_KEY must not be blank",
      validation: (key) => Redacted.value(key).trim() !== ""
    }),
    Config.map((key) => Redacted.make(Redacted.value(key).trim()))
  ),
  baseUrl: Config.string("ASSEMBLYAI_BASE_URL").pipe(
    Config.withDefault(defaultSettings.baseUrl),
    Config.map((url) => url.trim().replace(/\/+$/, "")),
    Config.validate({
      message: "ASSEMBLYAI_BASE_URL must be an http:// or https:// origin, e.g. https://api.assemblyai.com",
      validation: (url) => /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i.test(url)
    })
  ),
  piiPolicies: Config.string("ASSEMBLYAI_PII_POLICIES").pipe(
    Config.map(splitList),
    Config.validate({
      message: `ASSEMBLYAI_PII_POLICIES takes a comma-separated list of AssemblyAI PII policies (${piiPolicies.join(", ")})`,
      validation: (list) => list.length > 0 && list.every(isPiiPolicy)
    }),
    Config.map((list) => [...new Set(list.filter(isPiiPolicy))]),
    Config.withDefault(defaultPiiPolicies)
  ),
  piiSubstitution: Config.literal(
    "hash",
    "entity_type"
  )("ASSEMBLYAI_PII_SUBSTITUTION").pipe(Config.withDefault(defaultSettings.piiSubstitution)),
  speechModels: Config.option(Config.string("ASSEMBLYAI_SPEECH_MODELS")).pipe(
    Config.map(Option.match({ onNone: () => [], onSome: splitList }))
  ),
  summaryType: Config.literal(...summaryTypes)("ASSEMBLYAI_SUMMARY_TYPE").pipe(
    Config.withDefault(defaultSettings.summaryType)
  ),
  pollInterval: millis("ASSEMBLYAI_POLL_INTERVAL_MS", defaultSettings.pollInterval, 10),
  timeout: millis("ASSEMBLYAI_TIMEOUT_MS", defaultSettings.timeout, 1000),
  requestTimeout: millis("ASSEMBLYAI_REQUEST_TIMEOUT_MS", defaultSettings.requestTimeout, 100),
  retries: integer("ASSEMBLYAI_RETRIES", defaultSettings.retries, 0, "a whole number, 0 or more").pipe(
    Config.validate({ message: "ASSEMBLYAI_RETRIES must be at most 10", validation: (n) => n <= 10 })
  ),
  retryBase: millis("ASSEMBLYAI_RETRY_BASE_MS", defaultSettings.retryBase, 1),
  uploadBufferBytes: integer(
    "ASSEMBLYAI_UPLOAD_BUFFER_MB",
    defaultSettings.uploadBufferBytes / (1024 * 1024),
    0,
    "a whole number of megabytes, 0 or more"
  ).pipe(Config.map((mb) => mb * 1024 * 1024))
})

/**
 * A tool: its listing (name, title, description for a model, the input JSON Schema derived from an
 * Effect Schema, hints), its output schema (kept in the package, not listed: every answer is checked
 * against it), and its call, an Effect over the account's operations that never fails. Arguments
 * holding NUL in any string are refused first, naming each field (core's `storableInput`, every
 * entry point's string rule); then they are decoded with the input schema (a rejection is
 * `invalid_request` with one issue per field, as the REST API answers); the result is encoded with
 * the output schema into `structuredContent`, with a text rendering beside it for clients that show
 * only text. Failures come back as tool errors (`isError: true`) whose text is the API's error body
 * `{"error": code, "message": text, "details": object}`; a defect is logged and answered
 * `internal_error`.
 */
import type { CallToolResult, Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js"
import { storableInput } from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { inputJsonSchema, type ObjectJsonSchema, objectJsonSchema } from "./json-schema.js"
import type { AccountOperations } from "./operations.js"

export interface ToolSpec<I, II, O, OI> {
  readonly name: string
  readonly title: string
  /** What the tool does, when to use it and what it costs, written for a model. */
  readonly description: string
  readonly input: Schema.Schema<I, II>
  readonly output: Schema.Schema<O, OI>
  readonly annotations: Omit<ToolAnnotations, "title">
  readonly run: (input: I) => Effect.Effect<O, Errors.ApiError, AccountOperations>
  /**
   * The listed input schema from the derived one, e.g. a shared sub-schema another tool describes
   * in full, named here without its field descriptions (`namedOnly`); default: as derived.
   */
  readonly listedInput?: (schema: ObjectJsonSchema) => ObjectJsonSchema
  /** The text content beside the structured content; default: the structured content as JSON. */
  readonly text?: (output: O, structured: OI) => string
}

/** A tool with its types erased: what the server lists and calls. */
export interface McpTool {
  readonly name: string
  /**
   * What `tools/list` carries: name, title, description, input schema, hints. No output schema:
   * every conversation pays for the listing (it was 56 KB, 29 KB of it output schemas, which
   * no model vendor reads), and a model reads the text content, which says the next step.
   */
  readonly listing: Tool
  /** The JSON Schema of the structured content, for clients and tests that check it. */
  readonly outputSchema: ObjectJsonSchema
  readonly call: (args: unknown) => Effect.Effect<CallToolResult, never, AccountOperations>
}

/** The tool error of an `ApiError`: its body as the text. */
export const toolError = (error: Errors.ApiError): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: JSON.stringify(error.toBody()) }]
})

/**
 * An error whose fields are named as the tool names them: a tool that passes its input on under
 * the REST request's field names (`playlist` as `playlist_url`) answers with its own names, in
 * `details.issues` paths and in the messages.
 */
export const renameFields =
  (names: { readonly [restField: string]: string }) =>
  (error: Errors.ApiError): Errors.ApiError => {
    const pattern = new RegExp(`\\b(${Object.keys(names).join("|")})\\b`, "g")
    const rename = (text: string) => text.replace(pattern, (field) => names[field] ?? field)
    const issues = error.details.issues
    return new Errors.ApiError({
      code: error.code,
      message: rename(error.message),
      details: {
        ...error.details,
        ...(Array.isArray(issues)
          ? {
              issues: issues.map((issue: unknown) => {
                if (typeof issue !== "object" || issue === null) return issue
                const { path, message } = issue as { path?: unknown; message?: unknown }
                return {
                  ...issue,
                  ...(Array.isArray(path)
                    ? {
                        path: path.map((part: unknown) =>
                          typeof part === "string" ? (names[part] ?? part) : part
                        )
                      }
                    : {}),
                  ...(typeof message === "string" ? { message: rename(message) } : {})
                }
              })
            }
          : {})
      }
    })
  }

const asStructured = (value: unknown): { [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as { [key: string]: unknown })
    : { value }

export const defineTool = <I, II, O, OI>(spec: ToolSpec<I, II, O, OI>): McpTool => {
  const decode = Schema.decodeUnknown(spec.input, { errors: "all", onExcessProperty: "ignore" })
  const encode = Schema.encode(spec.output)
  return {
    name: spec.name,
    outputSchema: objectJsonSchema(spec.output),
    listing: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: (spec.listedInput ?? ((schema) => schema))(inputJsonSchema(spec.input)),
      // The title once, at the top (MCP 2025-06-18): the listing is paid for in every conversation.
      annotations: spec.annotations
    },
    call: (args) =>
      storableInput(args).pipe(
        Effect.zipRight(decode(args ?? {}).pipe(Effect.mapError(Errors.invalidRequest))),
        Effect.flatMap(spec.run),
        Effect.flatMap((output) =>
          encode(output).pipe(
            Effect.orDie,
            Effect.map(
              (structured): CallToolResult => ({
                content: [
                  {
                    type: "text",
                    text: spec.text?.(output, structured) ?? JSON.stringify(structured, null, 1)
                  }
                ],
                structuredContent: asStructured(structured)
              })
            )
          )
        ),
        Effect.tapError((error) => Effect.logInfo(`tool answered ${error.code}`, error.message)),
        Effect.catchAll((error) => Effect.succeed(toolError(error))),
        Effect.catchAllDefect((defect) =>
          Effect.logError("tool failed unexpectedly", defect).pipe(
            Effect.as(toolError(Errors.apiError("internal_error")))
          )
        ),
        Effect.withSpan(`mcp.tool.${spec.name}`, { captureStackTrace: false }),
        Effect.annotateLogs({ tool: spec.name })
      )
  }
}

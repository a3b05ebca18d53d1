/**
 * Query-string schemas as the contract declares them. OpenAPI lists a query's parameters only
 * when its schema is an inline struct, so the domain's named query structs (whose identifier
 * would turn into a `$ref`) are declared as fresh structs of the same fields, still reporting
 * every rejected parameter, not only the first.
 */
import { Schema } from "effect"

export const query = <Fields extends Schema.Struct.Fields>(
  schema: Schema.Struct<Fields>
): Schema.Struct<Fields> => Schema.Struct(schema.fields).annotations({ parseOptions: { errors: "all" } })

/**
 * @verbatim/mcp-tools: the MCP server of Verbatim on `@modelcontextprotocol/sdk`. Its tools and
 * resources (`tools`, `makeServer`) run on the operations of one account (`AccountOperations`):
 * the use cases in process (`inProcess`, `inProcessByKey`) or the REST API of a running server
 * (`overHttp`). `McpHttpLive` mounts the Streamable HTTP transport on the API server at
 * `/api/v2/gpt/mcp`; `apps/mcp` serves it on stdio.
 */
export * from "./chunks.js"
export * from "./http.js"
export * from "./json-schema.js"
export * from "./operations.js"
export * from "./origin.js"
export * from "./resources.js"
export * from "./server.js"
export * from "./snippets.js"
export * from "./tool.js"
export * from "./tools/index.js"

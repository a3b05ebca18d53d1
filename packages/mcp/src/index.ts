/**
 * @verbatim/mcp-tools: the MCP server of Verbatim on `@modelcontextprotocol/sdk`. Its tools and
 * resources (`tools`, `makeServer`) run on the operations of one account (`AccountOperations`):
 * the use cases in process (`inProcess`, `inProcessByKey`) or the REST API of a running server
 * (`overHttp`). `@verbatim/mcp-tools/streamable` answers one Streamable HTTP request (the API
 * server's own route, `McpHttpLive` in `packages/api/src/mcp/`, mounts it at `/api/v2/gpt/mcp`;
 * this package never imports the server's; a subpath, so the stdio bundle holds no lazily loaded
 * transport); `apps/mcp` serves the tools on stdio.
 */
export * from "./chunks.js"
export * from "./json-schema.js"
export * from "./operations.js"
export * from "./resources.js"
export * from "./server.js"
export * from "./snippets.js"
export * from "./tool.js"
export * from "./tools/index.js"

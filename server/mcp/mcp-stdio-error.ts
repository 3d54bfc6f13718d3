/** `agentlink mcp` could not start (credentials missing or refused): runCli prints the message alone and exits 2. */
export class McpStdioError extends Error {}

// Connects to the sqlmcp at argv[2] as an OAuth client that knows only its
// own credentials (SQLMCP_TEST_CLIENT_ID, SQLMCP_TEST_CLIENT_SECRET): on the
// 401 the SDK reads the protected resource metadata, discovers the
// authorization server, gets a token for the resource (RFC 8707) by the
// client credentials grant and retries. It prints what it found and what a
// tools/call returned, as one JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { discoverOAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/client/auth.js";

const url = new URL(process.argv[2]);
const provider = new ClientCredentialsProvider({
  clientId: process.env.SQLMCP_TEST_CLIENT_ID,
  clientSecret: process.env.SQLMCP_TEST_CLIENT_SECRET,
});
const metadata = await discoverOAuthProtectedResourceMetadata(url);
const client = new Client({ name: "oauthclient", version: "0.0.0" });
await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
const tools = await client.listTools();
const call = await client.callTool({ name: "run_query", arguments: { sql: "SELECT count(*) AS n FROM customers" } });
console.log(JSON.stringify({
  metadata,
  tools: tools.tools.map((t) => t.name).sort(),
  text: call.content.map((c) => c.text).join(""),
  isError: call.isError ?? false,
}));
await client.close();

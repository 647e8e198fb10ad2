// backchannel's real MCP server on the official TypeScript SDK v2 (@modelcontextprotocol/server), for the
// server-side scenarios: the harness plays a 2026-07-28 client and judges what this server answers.
//
//   node ts_sdk_server.mjs [--port N]    (N defaults to 0: a free port)
//
// Binds 127.0.0.1 only, prints `READY http://127.0.0.1:PORT/mcp` as its first stdout line, and serves until
// SIGTERM, SIGINT or EOF on stdin (so it never outlives the process that started it), then exits 0.
//
// Everything protocol-shaped is the SDK's. One endpoint serves both eras, routed with the SDK's own classifier
// (isLegacyRequest, the predicate createMcpHandler itself routes on), as the SDK documents for keeping a sessionful
// 2025 deployment next to a strict modern one (the SDK repository's docs/serving/legacy-clients.md and
// examples/legacy-routing/server.ts; where that example writes its 404 and 400 bodies by hand, SDK code answers here):
//
//   2026-07-28  createMcpHandler(buildServer, { legacy: 'reject' }) serves Streamable HTTP statelessly (one
//               McpServer per request); tools ask for input by returning inputRequired(...) (MRTR), the SDK checks
//               each embedded request against the capabilities the request declared (-32021, HTTP 400), and
//               requestState is minted and verified with the SDK's HMAC codec.
//   2025-era    (2025-06-18, 2025-11-25: the `initialize` handshake) a sessionful legacy session: the initialize
//               POST opens a WebStandardStreamableHTTPServerTransport with a sessionIdGenerator and its own
//               McpServer from the same buildServer, and every later request carrying that Mcp-Session-Id (POST,
//               the GET stream, DELETE) goes to it. The same tools' inputRequired(...) returns are fulfilled by the
//               SDK's legacy shim (ServerOptions.inputRequired, on by default): each embedded request goes to the
//               client as a real server-initiated `elicitation/create` on the tools/call POST's SSE stream (URL
//               mode gets a minted elicitationId), checked against the capabilities `initialize` declared, and
//               the tool is re-entered with the answer. At most MAX_LEGACY_SESSIONS live at once: opening one
//               more closes the oldest, whose id then answers the transport's own 404 `Session not found`, so
//               the client re-initializes. A legacy request with an unknown Mcp-Session-Id gets that same 404
//               (from a closed transport); one with no session that is not an `initialize` is served by
//               legacyStatelessFallback, exactly as createMcpHandler's default legacy posture served it before
//               (so it still cannot receive server-to-client requests, and GET/DELETE answer 405).
//
// Nothing here writes JSON-RPC or HTTP by hand.
//
// Tools:
//   test_url_elicitation                    needs URL-mode elicitation; accept -> result, decline/cancel -> isError
//   test_input_required_result_elicitation  needs form-mode elicitation (boolean `confirmed`); same answers
import { randomUUID } from 'node:crypto';
import { fstatSync } from 'node:fs';
import { createServer } from 'node:http';

import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import {
    acceptedContent,
    createMcpHandler,
    createRequestStateCodec,
    inputRequired,
    inputResponse,
    isInitializeRequest,
    isJsonContentType,
    isLegacyRequest,
    legacyStatelessFallback,
    McpServer,
    readRequestBody,
    WebStandardStreamableHTTPServerTransport
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

const HOST = '127.0.0.1';
const PATH = '/mcp';
const URL_KEY = 'sign_in';
const FORM_KEY = 'confirmation';
const SIGN_IN_BASE = 'https://example.com/backchannel/sign-in';
// Live 2025-era sessions at most; opening one more closes the oldest (a client cannot grow memory without bound).
const MAX_LEGACY_SESSIONS = 64;

const confirmationSchema = z.object({ confirmed: z.boolean().meta({ title: 'Confirm' }) });

// One key per process: the per-request McpServer instances all verify state minted by any of them.
const stateCodec = createRequestStateCodec({ key: crypto.getRandomValues(new Uint8Array(32)), ttlSeconds: 600 });

function parsePort(argv) {
    let port = 0;
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        const value = arg === '--port' ? argv[++i] : arg.startsWith('--port=') ? arg.slice('--port='.length) : undefined;
        if (value === undefined) {
            usage(`unknown argument ${JSON.stringify(arg)}`);
        }
        if (!/^\d+$/.test(value) || Number(value) > 65535) {
            usage(`--port wants an integer 0-65535, got ${JSON.stringify(value)}`);
        }
        port = Number(value);
    }
    return port;
}

function usage(problem) {
    process.stderr.write(`ts_sdk_server: ${problem}\nusage: node ts_sdk_server.mjs [--port N]\n`);
    process.exit(2);
}

function text(message, isError = false) {
    return { content: [{ type: 'text', text: message }], ...(isError && { isError: true }) };
}

function buildServer() {
    const server = new McpServer(
        { name: 'backchannel-ts-sdk-server', version: '0.1.0' },
        { requestState: { verify: stateCodec.verify } }
    );

    // URL mode (SEP-1036) over MRTR (SEP-2322). The first entry returns one URL-mode request and a signed
    // requestState naming the flow; the SDK answers -32021 instead when the request did not declare
    // elicitation.url. A retry carrying that state and an answer finishes the call.
    server.registerTool(
        'test_url_elicitation',
        { description: 'Asks the user to complete a sign-in at a URL (URL-mode elicitation)', inputSchema: z.object({}) },
        async (_args, ctx) => {
            const state = ctx.mcpReq.requestState();
            const answer = inputResponse(ctx.mcpReq.inputResponses, URL_KEY);
            if (state?.flow !== undefined && answer.kind === 'elicit') {
                if (answer.action === 'accept') {
                    return text(`URL elicitation ${state.flow} accepted: the sign-in flow was opened`);
                }
                return text(`URL elicitation ${state.flow}: the user chose ${answer.action}, so nothing was done`, true);
            }
            const flow = randomUUID();
            return inputRequired({
                inputRequests: {
                    [URL_KEY]: inputRequired.elicitUrl({
                        message: 'Sign in to continue (backchannel test flow).',
                        url: `${SIGN_IN_BASE}?flow=${flow}`
                    })
                },
                requestState: await stateCodec.mint({ flow })
            });
        }
    );

    // Form mode over MRTR: asks for a boolean `confirmed`. Write-once: any round without an accepted, valid
    // answer asks again, except an explicit decline or cancel, which ends the call with isError.
    server.registerTool(
        'test_input_required_result_elicitation',
        { description: 'Asks the user to confirm through a form (form-mode elicitation)', inputSchema: z.object({}) },
        async (_args, ctx) => {
            const answer = inputResponse(ctx.mcpReq.inputResponses, FORM_KEY);
            if (answer.kind === 'elicit' && answer.action !== 'accept') {
                return text(`Form elicitation: the user chose ${answer.action}, so nothing was done`, true);
            }
            const content = acceptedContent(ctx.mcpReq.inputResponses, FORM_KEY, confirmationSchema);
            if (content !== undefined) {
                return text(`Form elicitation accepted: confirmed=${content.confirmed}`);
            }
            return inputRequired({
                inputRequests: {
                    [FORM_KEY]: inputRequired.elicit({ message: 'Please confirm to continue.', requestedSchema: confirmationSchema })
                }
            });
        }
    );

    return server;
}

// --- 2025-era sessions ------------------------------------------------------------------------------------------

// Session id -> its transport and McpServer, in the order they opened (a Map iterates in insertion order).
const sessions = new Map();

// A sessionful transport closed at once: the SDK answers every request to a closed transport with 404 `Session not
// found` (-32001), which is what a request naming an unknown or evicted Mcp-Session-Id must get.
const endedSession = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
await endedSession.close();

function closeSession(id) {
    const session = sessions.get(id);
    if (session === undefined) return Promise.resolve();
    sessions.delete(id);
    // closing the server closes its transport: its SSE streams end and its pending requests are rejected
    return session.server
        .close()
        .catch(error => process.stderr.write(`ts_sdk_server: closing session ${id} failed: ${error}\n`));
}

async function openSession(request) {
    const server = buildServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: id => {
            sessions.set(id, { server, transport });
            for (const oldest of sessions.keys()) {
                if (sessions.size <= MAX_LEGACY_SESSIONS) break;
                void closeSession(oldest);
            }
        }
    });
    // before connect, so the server chains it: a DELETE, an eviction or shutdown all forget the session here
    transport.onclose = () => {
        if (transport.sessionId !== undefined && sessions.get(transport.sessionId)?.transport === transport) {
            sessions.delete(transport.sessionId);
        }
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    if (transport.sessionId === undefined) {
        // the transport refused the handshake before a session opened (406, 415, a parse error): nothing to keep
        await server.close();
    }
    return response;
}

// Whether a legacy POST is the `initialize` handshake, read from a copy so the request stays readable.
async function isInitialize(request) {
    if (request.method.toUpperCase() !== 'POST') return false;
    try {
        const body = await readRequestBody(request.clone());
        return !body.tooLarge && isInitializeRequest(JSON.parse(body.text));
    } catch {
        return false; // not JSON: the leg it is routed to answers the parse error
    }
}

// --- routing -----------------------------------------------------------------------------------------------------

const port = parsePort(process.argv.slice(2));
const modern = createMcpHandler(() => buildServer(), { legacy: 'reject' });
const stateless = legacyStatelessFallback(() => buildServer());

async function serveLegacy(request) {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
        return (sessions.get(sessionId)?.transport ?? endedSession).handleRequest(request);
    }
    if (await isInitialize(request)) {
        return openSession(request);
    }
    return stateless(request);
}

const handler = {
    fetch: async request => {
        // createMcpHandler answers a non-JSON POST 415 before it classifies anything; keep that order for both eras
        if (request.method.toUpperCase() === 'POST' && !isJsonContentType(request.headers.get('content-type'))) {
            return modern.fetch(request);
        }
        return (await isLegacyRequest(request)) ? serveLegacy(request) : modern.fetch(request);
    }
};
const nodeHandler = toNodeHandler(handler);
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const httpServer = createServer((req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    const path = (req.url ?? '').split('?')[0];
    if (path !== PATH) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: this server serves ${PATH}\n`);
        return;
    }
    void nodeHandler(req, res);
});

let stopping = false;
async function stop(why) {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`ts_sdk_server: stopping (${why})\n`);
    httpServer.close();
    httpServer.closeAllConnections();
    await Promise.all([...sessions.keys()].map(closeSession));
    try {
        await modern.close();
    } catch (error) {
        process.stderr.write(`ts_sdk_server: closing the handler failed: ${error}\n`);
    }
    process.exit(0);
}

function stdinIsPipe() {
    try {
        const kind = fstatSync(0);
        return kind.isFIFO() || kind.isSocket();
    } catch {
        return false;
    }
}

process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
// EOF on a piped stdin means the parent is gone (or closed our pipe on purpose): never outlive it. A terminal
// (`node ts_sdk_server.mjs &` would stop on SIGTTIN) or /dev/null (a script's `&`) is left alone: signals only.
if (stdinIsPipe()) {
    process.stdin.on('end', () => void stop('stdin closed'));
    process.stdin.on('error', () => void stop('stdin error'));
    process.stdin.resume();
}

httpServer.on('error', error => {
    process.stderr.write(`ts_sdk_server: cannot listen on ${HOST}:${port}: ${error.message}\n`);
    process.exit(1);
});
httpServer.listen(port, HOST, () => {
    process.stdout.write(`READY http://${HOST}:${httpServer.address().port}${PATH}\n`);
});

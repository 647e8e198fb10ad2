#!/usr/bin/env node
// The TypeScript SDK v2 (@modelcontextprotocol/client) behind backchannel's driver contract
// (proxy/clients/drivers/__init__.py states it; docs/real-clients.md says which verdict judges the SDK and which this script).
//
// Usage: node ts_sdk.mjs (URL | --stdio-argv JSON) [--tool NAME] [--mode auto|legacy|pin|<version>]
//        [--sampling-reply TEXT] [--root PATH]... [--add-root PATH]
//
// --stdio-argv '["cmd", "arg", ...]' instead of URL: the SDK's own StdioClientTransport spawns that command as the
// server (e.g. `backchannel bridge RUN-URL`); the origin shown for its requests is then `stdio`.
//
// --mode: the SDK's own default is 'legacy' (an initialize handshake at 2025-11-25, no MRTR). This driver defaults
// to 'auto' like the Python SDK does, so both drivers probe server/discover unless told otherwise; 'legacy' gives
// the SDK's out-of-the-box behaviour, 'pin' (or an explicit version) pins 2026-07-28 with no fallback.
//
// The protocol logic (era negotiation, MRTR rounds, requestState echo, result validation) is the SDK's; this script
// chooses the answers and renders what the server asked. It declares elicitation {form, url} and nothing else: no
// sampling, because a driver has no model and a made-up completion would be a lie the probe could build on.
//
// With MCP_CONFORMANCE_SCENARIO set the driver speaks the official conformance suite's client contract instead
// (ts_sdk_conformance.mjs): the scenario chooses the calls, the URL is the last argument.
//
// --sampling-reply TEXT: a host whose model is a fixed stand-in. The driver then declares `sampling: {}` (no tools,
// no context), shows each sampling request fenced and attributed like an elicitation, and answers it with TEXT.
// Roots (opt-in; without --root it declares none and registers no roots/list handler, as an app that offers none):
// each --root PATH is a folder exposed as a root (a file:// URI of its absolute path; `.` is the working folder),
// declared as roots {listChanged: true} with a roots/list handler. --add-root PATH adds a folder after the calls, as
// a user would: in a 2025 session the SDK announces it (sendRootsListChanged) and the driver waits (bounded) for the
// server to ask again; then every tool is called once more.

import { Client, ProtocolError, SdkError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { contractFrom, runConformance } from './ts_sdk_conformance.mjs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const DRIVER = { name: 'backchannel-ts-sdk-driver', version: '0.1.0' };
const PINNED = '2026-07-28';
const USAGE =
    'usage: node ts_sdk.mjs (URL | --stdio-argv JSON) [--tool NAME] [--mode auto|legacy|pin|<version>] [--sampling-reply TEXT] [--root PATH]... [--add-root PATH]';
const ROOTS_WAIT_MS = 10000; // how long, after announcing a change, the driver waits for the server to ask again
const STDIO_ORIGIN = 'stdio'; // what names a server spawned over stdio, where there is no scheme://host:port

function parseArgs(argv) {
    const out = { url: undefined, tool: undefined, mode: 'auto', stdio: undefined, samplingReply: undefined, roots: [], addRoot: undefined };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--tool' || arg === '--mode') {
            if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
            out[arg.slice(2)] = argv[++i];
        } else if (arg === '--sampling-reply') {
            if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
            out.samplingReply = argv[++i];
        } else if (arg === '--root' || arg === '--add-root') {
            if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
            if (arg === '--root') out.roots.push(resolve(argv[++i]));
            else out.addRoot = resolve(argv[++i]);
        } else if (arg === '--stdio-argv') {
            if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
            out.stdio = stdioArgv(argv[++i]);
        } else if (arg === '-h' || arg === '--help') {
            console.log(USAGE);
            process.exit(0);
        } else if (arg.startsWith('-')) {
            throw new UsageError(`unknown option ${arg}`);
        } else if (out.url === undefined) {
            out.url = arg;
        } else {
            throw new UsageError(`unexpected argument ${arg}`);
        }
    }
    if ((out.url === undefined) === (out.stdio === undefined)) throw new UsageError('give either URL or --stdio-argv JSON');
    return out;
}

// --stdio-argv: a JSON array of strings, the program first
function stdioArgv(text) {
    let argv;
    try {
        argv = JSON.parse(text);
    } catch (err) {
        throw new UsageError(`--stdio-argv is not JSON: ${err.message}`);
    }
    if (!Array.isArray(argv) || argv.length === 0 || !argv.every(part => typeof part === 'string')) {
        throw new UsageError('--stdio-argv must be a non-empty JSON array of strings');
    }
    return argv;
}

class UsageError extends Error {}

function negotiation(mode) {
    if (mode === 'auto' || mode === 'legacy') return mode;
    return { pin: mode === 'pin' ? PINNED : mode };
}

function originOf(url) {
    const parts = new URL(url);
    const port = parts.port || (parts.protocol === 'https:' ? '443' : '80');
    return `${parts.protocol}//${parts.hostname}:${port}`;
}

// Server text made safe for a terminal: control characters and bidi overrides shown as escapes, never obeyed.
function printable(text) {
    return String(text)
        .replaceAll('\t', '    ')
        .replace(/[\u202a-\u202e\u2066-\u2069]/gu, ch => `\\u${ch.codePointAt(0).toString(16).padStart(4, '0')}`)
        .replace(/\p{Cc}/gu, ch => `\\x${ch.codePointAt(0).toString(16).padStart(2, '0')}`);
}

function renderRequest(server, origin, mode, message, url) {
    const who = server ? `${printable(server)} (${origin})` : origin;
    const lines = [`[input request from MCP server ${who}, ${mode} mode — untrusted text follows]`];
    // every line gets the prefix, so server text can never forge the closing line of the fence
    const body = String(message ?? '').split(/\r\n|\r|\n|\u2028|\u2029|\x85|\v|\f|\x1c|\x1d|\x1e/u);
    if (body.length > 1 && body[body.length - 1] === '') body.pop(); // like Python's splitlines()
    for (const line of body) lines.push(`  | ${printable(line)}`);
    if (url !== undefined) lines.push(`  url (shown, not opened): ${printable(url)}`);
    lines.push('[end of server text]');
    return lines.join('\n');
}

function answerFor(mode, message) {
    if (mode === 'url') return String(message ?? '').startsWith('DECLINE:') ? { action: 'decline' } : { action: 'accept' };
    return { action: 'accept', content: { confirmed: true } };
}

// The URL-mode elicitations a -32042 error (2025-11-25's URLElicitationRequiredError) names; undefined: not one.
function requiredElicitations(err) {
    if (!(err instanceof ProtocolError) || err.code !== -32042) return undefined;
    const found = err.elicitations ?? err.data?.elicitations;
    return Array.isArray(found) ? found.filter(e => e && typeof e === 'object') : [];
}

function errorLine(err) {
    // MCP (JSON-RPC) errors carry a numeric code; the SDK's own failures a string code such as InvalidResult
    if (err instanceof ProtocolError || err instanceof SdkError) return `error: ${err.code} ${printable(err.message)}`;
    const first = String(err?.message ?? err).split('\n')[0];
    return `error: ${err?.name ?? 'Error'} ${printable(first)}`;
}

// --sampling-reply: the stand-in model (kept apart from the elicitation answers above)
const SAMPLING_MODEL = 'backchannel-stand-in-model';

function samplingText(params) {
    const lines = [];
    for (const message of params?.messages ?? []) {
        const blocks = Array.isArray(message.content) ? message.content : [message.content];
        for (const block of blocks) {
            lines.push(typeof block?.text === 'string' ? `${message.role}: ${block.text}` : `${message.role}: [${block?.type} block]`);
        }
    }
    return lines.join('\n');
}

function answerSampling(client, origin, reply) {
    client.setRequestHandler('sampling/createMessage', async request => {
        const server = client.getServerVersion()?.name;
        console.log(renderRequest(server, origin, 'sampling', samplingText(request.params), undefined));
        console.log(`[answered: the stand-in model's reply, ${reply.length} characters]`);
        return { role: 'assistant', content: { type: 'text', text: reply }, model: SAMPLING_MODEL, stopReason: 'endTurn' };
    });
}

// The roots --root exposes (opt-in), and a way to wait for the server's next roots/list.
function exposedRoots(folders) {
    const state = { folders: [...folders], waiters: [] };
    state.list = () => {
        const roots = state.folders.map(folder => ({ uri: pathToFileURL(folder).href, name: folder.split('/').pop() || '/' }));
        console.log(`[roots given: ${roots.map(root => root.uri).join(', ')}]`);
        for (const wake of state.waiters.splice(0)) wake();
        return { roots };
    };
    state.nextAsk = () => new Promise(wake => {
        const timer = setTimeout(wake, ROOTS_WAIT_MS);
        state.waiters.push(() => { clearTimeout(timer); wake(); });
    });
    return state;
}

async function run({ url, tool, mode, stdio, samplingReply, roots, addRoot }) {
    const origin = stdio ? STDIO_ORIGIN : originOf(url);
    const sampling = samplingReply === undefined ? {} : { sampling: {} };
    const exposed = roots.length ? exposedRoots(roots) : undefined;
    const client = new Client(DRIVER, {
        capabilities: {
            elicitation: { form: {}, url: {} },
            ...sampling,
            ...(exposed ? { roots: { listChanged: true } } : {}),
        },
        versionNegotiation: { mode: negotiation(mode) },
    });
    if (samplingReply !== undefined) answerSampling(client, origin, samplingReply);
    if (exposed) client.setRequestHandler('roots/list', async () => exposed.list());
    client.setRequestHandler('elicitation/create', async request => {
        // the SDK's parsed view decides the mode, as it would in any app built on it; no mode means form
        const params = request.params ?? {};
        const isUrl = params.mode === 'url';
        const server = client.getServerVersion()?.name;
        console.log(renderRequest(server, origin, isUrl ? 'url' : 'form', params.message, isUrl ? params.url : undefined));
        const answer = answerFor(isUrl ? 'url' : 'form', params.message);
        console.log(`[answered: ${answer.action}${answer.content ? ', content {confirmed: true}' : ''}]`);
        return answer;
    });
    const transport = stdio
        ? new StdioClientTransport({ command: stdio[0], args: stdio.slice(1) })
        : new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    let failed = false;
    try {
        const listed = (await client.listTools()).tools.map(t => t.name);
        // every tool at once, as the contract allows, so servers that hold a retry open do not add up
        // one call; after a -32042 the URLs it names are shown (never opened) and the call is retried once
        const attempt = async name => {
            try {
                return await client.callTool({ name, arguments: {} });
            } catch (err) {
                const required = requiredElicitations(err);
                if (required === undefined) throw err;
                const server = client.getServerVersion()?.name;
                for (const each of required) console.log(renderRequest(server, origin, 'url', each.message, String(each.url)));
                console.log(`[-32042 for ${printable(name)}: ${required.length} URL(s) shown, none opened; retrying the call once]`);
                return await client.callTool({ name, arguments: {} });
            }
        };
        const callAll = () => Promise.all((tool ? [tool] : listed).map(async name => {
            let result;
            try {
                result = await attempt(name);
            } catch (err) {
                // one tool failing must not hide what the others do
                console.error(`${errorLine(err)} [tool ${printable(name)}]`);
                failed = true;
                return;
            }
            for (const block of result.content ?? []) {
                const text = typeof block.text === 'string' ? printable(block.text) : `[${block.type} block]`;
                console.log(`result ${name}: ${text}`);
            }
        }));
        await callAll();
        if (exposed && addRoot !== undefined) {
            exposed.folders.push(addRoot);
            console.log(`[root added: ${pathToFileURL(addRoot).href}]`);
            const version = client.getNegotiatedProtocolVersion();
            if (version !== undefined && version !== PINNED) { // 2026-07-28 has no list_changed
                const asked = exposed.nextAsk();
                await client.sendRootsListChanged();
                await asked;
            }
            await callAll();
        }
    } finally {
        await client.close();
    }
    return failed ? 1 : 0;
}

// MCP_CONFORMANCE_SCENARIO set: the official suite's client contract (and backchannel's `conformance` scenario);
// the scenario scripts the calls and the URL is the last argument (ts_sdk_conformance.mjs)
async function conformanceMain(contract) {
    if (process.argv.length <= 2) {
        console.error("error: the suite's contract needs the server URL as the last argument");
        return 2;
    }
    const url = process.argv[process.argv.length - 1];
    return runConformance(url, contract, { originOf, renderRequest, answerFor, printable, errorLine, driver: DRIVER });
}

async function main() {
    let contract, args;
    try {
        contract = contractFrom(process.env);
        if (contract === undefined) args = parseArgs(process.argv.slice(2));
    } catch (err) {
        console.error(err instanceof UsageError ? `${USAGE}\nerror: ${err.message}` : `error: ${err.message}`);
        return 2;
    }
    try {
        return contract === undefined ? await run(args) : await conformanceMain(contract);
    } catch (err) {
        console.error(errorLine(err));
        return 1;
    }
}

// exitCode, not exit(): lets stdout drain before node ends
process.exitCode = await main();

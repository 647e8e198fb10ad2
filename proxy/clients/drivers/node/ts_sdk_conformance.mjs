// The official conformance suite's client contract, spoken by the TypeScript SDK driver (ts_sdk.mjs) when
// MCP_CONFORMANCE_SCENARIO is set; the same calls as the Python driver's py_sdk_conformance.py (its docstring is the
// contract in full). The suite appends the mock server's URL as the last argument and sets
// MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION and (some scenarios) MCP_CONFORMANCE_CONTEXT (JSON);
// backchannel's `conformance` scenario gives its clients the same.
//
// This script chooses the calls and the answers; the SDK does the protocol (era negotiation, MRTR rounds, the
// requestState echo, headers, result validation), so the suite's verdicts speak about the SDK:
// - sep-2322-client-request-state: list tools; call test_mrtr_echo_state and, from inside its first input request
//   (between the round and its retry), test_mrtr_unrelated; then test_mrtr_no_state, then test_mrtr_no_result_type.
// - a context naming toolCalls (http-custom-headers): list tools, then exactly those calls.
// - every other scenario: list tools and call each the SDK lists, with arguments made from its input schema; read
//   every listed resource and get every listed prompt when the server declares those capabilities.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const MRTR_SCENARIO = 'sep-2322-client-request-state';
const ECHO_STATE = 'test_mrtr_echo_state';
const NO_STATE = 'test_mrtr_no_state';
const UNRELATED = 'test_mrtr_unrelated';
const NO_RESULT_TYPE = 'test_mrtr_no_result_type';
// a value of each JSON Schema type, for a required argument the scenario gives no value for
const SAMPLE_VALUES = { string: 'backchannel', integer: 2, number: 3, boolean: true };

export function contractFrom(env) {
    const scenario = env.MCP_CONFORMANCE_SCENARIO;
    if (!scenario) return undefined;
    const context = env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(env.MCP_CONFORMANCE_CONTEXT) : {};
    if (!context || typeof context !== 'object' || Array.isArray(context)) throw new Error('MCP_CONFORMANCE_CONTEXT is not a JSON object');
    return { scenario, version: env.MCP_CONFORMANCE_PROTOCOL_VERSION || undefined, context };
}

export function sampleArguments(schema) {
    const properties = schema?.properties;
    const required = schema?.required;
    if (!properties || typeof properties !== 'object' || !Array.isArray(required)) return {};
    const chosen = {};
    for (const name of required) {
        const kind = properties[name]?.type;
        if (typeof name === 'string' && typeof kind === 'string' && kind in SAMPLE_VALUES) chosen[name] = SAMPLE_VALUES[kind];
    }
    return chosen;
}

function scriptedCalls(context) {
    if (!Array.isArray(context.toolCalls)) return undefined;
    return context.toolCalls
        .filter(call => call && typeof call === 'object' && typeof call.name === 'string')
        .map(call => ({ name: call.name, arguments: call.arguments ?? {} }));
}

// helpers: the driver's rendering, answers and error lines (ts_sdk.mjs passes its own, so both modes look alike)
export async function runConformance(url, contract, { originOf, renderRequest, answerFor, printable, errorLine, driver }) {
    const origin = originOf(url);
    const state = { failed: false, onFirstRound: undefined };
    const client = new Client(driver, {
        capabilities: { elicitation: { form: {}, url: {} } },
        versionNegotiation: { mode: 'auto' },
    });
    client.setRequestHandler('elicitation/create', async request => {
        const params = request.params ?? {};
        const isUrl = params.mode === 'url';
        console.log(renderRequest(client.getServerVersion()?.name, origin, isUrl ? 'url' : 'form', params.message, isUrl ? params.url : undefined));
        const hook = state.onFirstRound;
        state.onFirstRound = undefined;
        if (hook) await hook();
        const answer = answerFor(isUrl ? 'url' : 'form', params.message);
        console.log(`[answered: ${answer.action}${answer.content ? ', content {confirmed: true}' : ''}]`);
        return answer;
    });
    const call = async (name, args) => {
        let result;
        try {
            result = await client.callTool({ name, arguments: args });
        } catch (err) {
            // one call failing must not hide what the others do
            console.error(`${errorLine(err)} [tool ${printable(name)}]`);
            state.failed = true;
            return;
        }
        for (const block of result.content ?? []) {
            console.log(`result ${name}: ${typeof block.text === 'string' ? printable(block.text) : `[${block.type} block]`}`);
        }
    };
    const attempt = async (what, step) => {
        try {
            await step();
        } catch (err) {
            console.error(`${errorLine(err)} [${what}]`);
            state.failed = true;
        }
    };
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
        const tools = (await client.listTools()).tools;
        if (contract.scenario === MRTR_SCENARIO) {
            let unrelatedCalled = false;
            const unrelated = async () => {
                unrelatedCalled = true;
                await call(UNRELATED, {});
            };
            state.onFirstRound = unrelated;
            await call(ECHO_STATE, {});
            state.onFirstRound = undefined;
            if (!unrelatedCalled) await unrelated(); // the SDK never asked: the call can only come after
            await call(NO_STATE, {});
            await call(NO_RESULT_TYPE, {});
        } else {
            const calls = scriptedCalls(contract.context) ?? tools.map(t => ({ name: t.name, arguments: sampleArguments(t.inputSchema) }));
            for (const each of calls) await call(each.name, each.arguments);
            const capabilities = client.getServerCapabilities() ?? {};
            if (capabilities.resources) {
                for (const resource of (await client.listResources()).resources) {
                    await attempt(`resource ${resource.uri}`, () => client.readResource({ uri: resource.uri }));
                }
            }
            if (capabilities.prompts) {
                for (const prompt of (await client.listPrompts()).prompts) {
                    await attempt(`prompt ${prompt.name}`, () => client.getPrompt({ name: prompt.name }));
                }
            }
        }
    } finally {
        await client.close();
    }
    return state.failed ? 1 : 0;
}

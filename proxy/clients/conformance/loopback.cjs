// Preloaded (node --require) into the official conformance suite: every net.Server listens on 127.0.0.1.
//
// The suite's mock servers call listen(0) with no host, which binds every interface; the house rule is that
// everything binds loopback. http.Server (express's app.listen included) inherits net.Server.prototype.listen, so
// patching that one method covers them all. A listen on a path, a handle or a file descriptor is left alone.
//
// A listen with a host resolves it through dns.lookup, which answers on a later tick even for an IP literal, while a
// listen with no host binds at once; several mocks read server.address().port right after listen(0). So for the
// length of the listen call only, dns.lookup answers the loopback literal at once: the bind stays synchronous.
'use strict';

const dns = require('node:dns');
const net = require('node:net');

const LOOPBACK = '127.0.0.1';
const original = net.Server.prototype.listen;

function onLoopback(args) {
    const [first] = args;
    if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
        // listen(port[, host][, backlog][, callback]): drop any given host, put loopback in its place
        const rest = args.slice(1);
        if (typeof rest[0] === 'string') rest.shift();
        return [first, LOOPBACK, ...rest];
    }
    if (first === undefined || typeof first === 'function') return [0, LOOPBACK, ...args.slice(first === undefined ? 1 : 0)];
    if (first && typeof first === 'object' && first.path === undefined && first.fd === undefined && !first._handle && !first.handle) {
        return [{ ...first, host: LOOPBACK, ipv6Only: false }, ...args.slice(1)];
    }
    return args;
}

function immediateLoopback(lookup) {
    return function lookupNow(hostname, ...rest) {
        const callback = rest[rest.length - 1];
        if (hostname !== LOOPBACK || typeof callback !== 'function') return lookup.call(this, hostname, ...rest);
        // Node 22 asks for every address ({all: true}) so that a name with several is listened on at each
        const all = rest.length > 1 && rest[0] && typeof rest[0] === 'object' && rest[0].all;
        if (all) callback(null, [{ address: LOOPBACK, family: 4 }]);
        else callback(null, LOOPBACK, 4);
        return {};
    };
}

net.Server.prototype.listen = function listen(...args) {
    const lookup = dns.lookup;
    dns.lookup = immediateLoopback(lookup);
    try {
        return original.apply(this, onLoopback(args));
    } finally {
        dns.lookup = lookup;
    }
};

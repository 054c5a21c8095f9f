/**
 * Outbound safety with real sockets on loopback: the address policy's verdicts; a host whose DNS
 * answer changes to a private address after it was vetted (rebinding) is never connected to;
 * plain HTTP only to operator-allowed addresses; redirects not followed; at most a few KB of an
 * answer read; a receiver that never answers costs one timeout.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressPolicy } from '../../../../daemon/notify/address-policy.js';
import { createOutbound, OutboundError, type Resolver } from '../../../../daemon/notify/outbound.js';

let server: Server;
let port: number;
let hits = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
    if (req.url === '/big') return void res.writeHead(200).end('x'.repeat(1_000_000));
    if (req.url === '/hang') return; // never answers
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('address policy', () => {
  const strict = createAddressPolicy(false);
  const open = createAddressPolicy(true);
  const listed = createAddressPolicy(['10.1.0.0/16', '169.254.169.254']);
  it('refuses loopback, private, link-local, metadata and odd addresses by default, and allows public unicast over HTTPS only', () => {
    for (const a of ['127.0.0.1', '::1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', 'fd00:ec2::254', 'fe80::1', '100.64.0.1', '0.0.0.0', '::', '224.0.0.1', '::ffff:127.0.0.1', '64:ff9b::7f00:1']) {
      expect(strict.check(a).ok, a).toBe(false);
    }
    expect(strict.check('93.184.216.34')).toEqual({ ok: true, http: false });
    expect(strict.check('2606:2800:220:1:248:1893:25c8:1946')).toEqual({ ok: true, http: false });
  });
  it('with `true` allows private ranges (over HTTP too) but still no metadata address', () => {
    expect(open.check('127.0.0.1')).toEqual({ ok: true, http: true });
    expect(open.check('10.2.3.4')).toEqual({ ok: true, http: true });
    expect(open.check('169.254.169.254').ok).toBe(false);
    expect(open.check('fd00:ec2::254').ok).toBe(false);
    expect(open.check('93.184.216.34')).toEqual({ ok: true, http: false });
  });
  it('with a list allows exactly what is listed', () => {
    expect(listed.check('10.1.2.3')).toEqual({ ok: true, http: true });
    expect(listed.check('10.2.0.1').ok).toBe(false);
    expect(listed.check('169.254.169.254')).toEqual({ ok: true, http: true });
    expect(listed.check('127.0.0.1').ok).toBe(false);
  });
});

describe('outbound requests', () => {
  it('Given a host that resolved to a public address when vetted and to loopback at send time (DNS rebinding), then nothing connects to loopback', async () => {
    let answers = 0;
    const rebinding: Resolver = async () => (answers++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    // Port `port` on loopback is our server: were the lookup not pinned, it would count a hit. (The
    // operator allows plain HTTP to the public address, so the request would be a readable one.)
    const out = createOutbound({ policy: createAddressPolicy(['93.184.216.34/32']), timeoutMs: 2000, resolve: rebinding });
    await out.vet(`http://rebind.example:${port}/`);
    const before = hits;
    const err = await out.post(`http://rebind.example:${port}/`, { headers: {}, body: '{}' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).kind).toBe('refused');
    expect((err as Error).message).toMatch(/loopback/);
    expect(hits).toBe(before);
    await out.close();
  });

  it('refuses an IP-literal private URL, plain http to a public address, and credentials in the URL', async () => {
    const out = createOutbound({ policy: createAddressPolicy(false), timeoutMs: 2000, resolve: async () => [{ address: '93.184.216.34', family: 4 }] });
    for (const [url, why] of [
      [`http://127.0.0.1:${port}/`, /loopback/], ['http://[::1]/', /loopback/], ['https://169.254.169.254/latest/meta-data', /metadata/],
      ['http://public.example/', /https/], ['https://user:pw@public.example/', /user name or password/], ['ftp://public.example/', /https/], ['not a url', /valid URL/],
    ] as const) {
      const err = await out.vet(url).catch((e: unknown) => e);
      expect((err as Error).message, url).toMatch(why);
    }
    await expect(out.post(`http://127.0.0.1:${port}/`, { headers: {}, body: '' })).rejects.toMatchObject({ kind: 'refused' });
    await out.close();
  });

  it('does not follow redirects, reads at most 4 KB of an answer, and gives up on a silent receiver after its timeout', async () => {
    const out = createOutbound({ policy: createAddressPolicy(true), timeoutMs: 500 });
    expect((await out.post(`http://127.0.0.1:${port}/redirect`, { headers: {}, body: '' })).status).toBe(302);
    expect((await out.post(`http://127.0.0.1:${port}/big`, { headers: {}, body: '' })).body).toHaveLength(4096);
    await expect(out.post(`http://127.0.0.1:${port}/hang`, { headers: {}, body: '' })).rejects.toMatchObject({ kind: 'timeout' });
    await out.close();
  });
});

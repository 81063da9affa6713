import { describe, expect, it } from 'vitest';
import { call, jsonHeaders } from '../../support/http.js';
import { answerJson, selfSignedCertificate, useProxies, useTargets } from '../../support/proxy.js';
import { useTempDir } from '../../support/tempDir.js';

const proxies = useProxies();
const targets = useTargets();
const tempDir = useTempDir('proxy-tls');

const created = {
  success: 1,
  new_user_group: true,
  user_group: { team_id: 1, token: 'a'.repeat(64), name: 'A', provided_id: 'a', properties: null },
};
const getA = { name: 'A', user_group_id: 'a' };

describe('the proxy in front of an https target', () => {
  it('forwards to and judges a target whose certificate a private authority signed, given targetCa', async () => {
    const certificate = selfSignedCertificate(tempDir());
    const target = await targets((_req, res) => answerJson(res, 200, created), certificate);
    const proxy = await proxies({ target: target.url, targetCa: certificate.certFile });

    const answer = await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: getA });

    expect(target.url.startsWith('https://')).toBe(true);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(created);
    expect(target.received.map((r) => JSON.parse(r.body.toString('utf8')))).toEqual([getA]);
    expect(await proxy.requests()).toMatchObject([{ status: 200, diagnostics: [] }]);
  });

  it('answers 502 naming the untrusted certificate and --target-ca when the authority is not given', async () => {
    const certificate = selfSignedCertificate(tempDir());
    const target = await targets((_req, res) => answerJson(res, 200, created), certificate);
    const proxy = await proxies({ target: target.url });

    const answer = await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: getA });

    expect(answer.status).toBe(502);
    expect(answer.body.success).toBe(0);
    expect(answer.body.error.code).toBe('UPSTREAM_UNREACHABLE');
    expect(answer.body.error.message).toMatch(
      /certificate this proxy does not trust \(DEPTH_ZERO_SELF_SIGNED_CERT/,
    );
    expect(answer.body.error.message).toContain('--target-ca');
    expect(target.received).toEqual([]);
    expect(await proxy.requests({ invalid: true })).toMatchObject([{ status: 502, fault: 'provider' }]);
  });

  it('answers 502 naming the host the certificate does not name, and the target to change, not --target-ca', async () => {
    const certificate = selfSignedCertificate(tempDir()); // issued for 127.0.0.1 only
    const target = await targets((_req, res) => answerJson(res, 200, created), certificate);
    const byName = target.url.replace('127.0.0.1', 'localhost');
    const proxy = await proxies({ target: byName, targetCa: certificate.certFile });

    const answer = await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: getA });

    expect(answer.status).toBe(502);
    expect(answer.body.error.message).toMatch(
      /presented a certificate that does not name this host \(Hostname\/IP does not match certificate's altnames: Host: localhost\. .*\); give the target option \(--target\) a host name or address the certificate names/,
    );
    expect(answer.body.error.message).not.toContain('--target-ca');
    expect(target.received).toEqual([]);
  });
});

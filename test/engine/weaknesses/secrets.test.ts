// Literal passwords in configuration and scripts, and cloud/service tokens in any file; decoys (variables,
// placeholders, format strings in binaries, documentation) must not hit, and no secret appears in full.
import { describe, expect, it } from 'vitest';
import { embeddedTokenRule } from '../../../src/engine/weaknesses/embedded-token.rule.js';
import { literalValue, passwordAssignmentRule } from '../../../src/engine/weaknesses/password-assignment.rule.js';
import { analyze, fixture } from './support.js';

describe('password-assignment', () => {
  it('tells literal passwords from variables, commands, formats, templates and placeholders', () => {
    expect(literalValue('secret123')).toBe('secret123');
    expect(literalValue('"S3cure!pass"')).toBe('S3cure!pass');
    expect(literalValue("'admin'")).toBe('admin');
    for (const raw of ['$PASS', '"$PASS"', '${PASSWORD}', '`cat /etc/pw`', '$(nvram get pw)', 'query("/device/password")', '"%s"', '****', 'xxxxxxxx',
      '<password>', '{{ password }}', '@ADMIN_PW@', '', '""', 'none', '/etc/ppp/secrets', '"+escape(passwd)+"', 'a b', '"Mot de passe"']) {
      expect(literalValue(raw), raw).toBeUndefined();
    }
  });

  it('reports literal passwords in scripts and configuration, one finding per file and key, with a digest instead of the value', async () => {
    const ctx = await analyze(
      fixture({
        'etc/init.d/S99cloud': '#!/bin/sh\nUSER=device\npassword=secret123\nPASS_FROM_ENV=$PASS\npassword=$PASS\n',
        'etc/config/wireless': "config wifi-iface\n\toption ssid 'Home'\n\toption password 'admin'\n",
        'etc/hostapd.conf': 'interface=wlan0\nwpa_passphrase=W1fiDefaultKey\n',
        'www/cgi/login.php': '<?php\n$admin_password = "Sup3rSecret";\n$Password = query("/device/password");\n$pwd="";\n',
        'etc/app.json': '{\n  "user": "svc",\n  "password": "Xk29fLq0",\n}\n',
      }),
      [passwordAssignmentRule],
    );
    expect(ctx.findings.map((f) => [f.name, f.severity, f.occurrences.map((o) => o.evidence)]).sort()).toEqual([
      ['Hard-coded password "admin_password" in login.php', 'medium', [expect.stringMatching(/^\/www\/cgi\/login\.php:2: admin_password = <sha256:[0-9a-f]{8}, 11 characters>$/)]],
      ['Hard-coded password "password" in S99cloud', 'medium', [expect.stringMatching(/^\/etc\/init\.d\/S99cloud:3: password = <sha256:[0-9a-f]{8}, 9 characters>$/)]],
      ['Hard-coded password "password" in app.json', 'medium', [expect.stringMatching(/^\/etc\/app\.json:3: password = <sha256:/)]],
      ['Hard-coded password "password" in wireless', 'high', ['/etc/config/wireless:3: password = "admin" (a default password)']],
      ['Hard-coded password "wpa_passphrase" in hostapd.conf', 'medium', [expect.stringMatching(/^\/etc\/hostapd\.conf:2: wpa_passphrase = <sha256:/)]],
    ]);
    expect(ctx.findings.every((f) => f.identifiers[0]!.cwe === 'CWE-259' && f.identifiers[0]!.rule === 'weakness/password-assignment')).toBe(true);
    const text = JSON.stringify(ctx.findings);
    for (const secret of ['secret123', 'W1fiDefaultKey', 'Sup3rSecret', 'Xk29fLq0']) expect(text).not.toContain(secret);
  });

  it('does not hit format strings in binaries, comments, documentation, man pages, locale data or over-long lines', async () => {
    const binary = Buffer.concat([Buffer.from('\x7fELF\x01\x01\x01\0\0\0', 'latin1'), Buffer.from('\npassword=%s\npassword=admin123\n\0login: %s\n')]);
    const ctx = await analyze(
      fixture({
        'usr/sbin/loginsvc': binary,
        'etc/openssl.cnf': '# input_password = secret\n# output_password = secret\n',
        'usr/share/doc/app/README': 'Set password=mysecret in the config file.\n',
        'usr/share/man/man5/app.conf.5': 'password=changeme123\n',
        'usr/share/locale/de/app.txt': 'password=Kennwort\n',
        'www/lang/de.json': '{\n  "password": "Kennwort",\n  "new_password": "Neues Kennwort"\n}\n',
        'www/js/de.lang': 'password=Kennwort\n',
        'etc/blob.conf': `password=${'Zq9'.repeat(400)}\n`,
        'etc/scripts/pw.sh': '#!/bin/sh\nprintf "password=%s\\n" "$1"\necho password=$PW\n[ -n "$password" ] && password="$1"\n',
      }),
      [passwordAssignmentRule],
    );
    expect(ctx.findings).toEqual([]);
  });
});

describe('embedded-token', () => {
  const AWS_ID = 'AKIA' + 'Q3EGDJ7HPLMRN2XW';
  const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzz9Kd2mQ1p';
  const GOOGLE = 'AIza' + 'SyB7d9X2kLmQ0wErTyUiOpAsDfGhJkLzXcV';
  const GITHUB = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

  it('reports AWS keys with their secret, Google API keys and GitHub tokens in scripts and binaries, never the token in full', async () => {
    const binary = Buffer.concat([Buffer.from('\x7fELF\x01\x01\x01\0', 'latin1'), Buffer.alloc(3000), Buffer.from(`token\0${GITHUB}\0`), Buffer.alloc(100)]);
    const ctx = await analyze(
      fixture({
        'usr/bin/uploader.sh': `#!/bin/sh\nexport AWS_ACCESS_KEY_ID=${AWS_ID}\nexport AWS_SECRET_ACCESS_KEY=${AWS_SECRET}\n`,
        'www/js/map.js': `var key = "${GOOGLE}";\n`,
        'usr/sbin/updater': binary,
      }),
      [embeddedTokenRule],
    );
    expect(ctx.findings.map((f) => [f.name, f.severity, f.identifiers, f.occurrences.map((o) => [o.offset, o.evidence])])).toEqual([
      ['AWS access key in uploader.sh', 'high', [{ cwe: 'CWE-798', rule: 'weakness/embedded-token' }], [[35, expect.stringMatching(/^AWS access key AKIAQ3EG… \(sha256:[0-9a-f]{8}, 20 characters\)$/)]]],
      ['Google API key in map.js', 'high', [{ cwe: 'CWE-798', rule: 'weakness/embedded-token' }], [[11, expect.stringMatching(/^Google API key AIzaSyB7…/)]]],
      ['GitHub token in updater', 'high', [{ cwe: 'CWE-798', rule: 'weakness/embedded-token' }], [[3014, expect.stringMatching(/^GitHub token ghp_a1B2…/)]]],
    ]);
    const text = JSON.stringify(ctx.findings);
    for (const secret of [AWS_ID, AWS_SECRET, GOOGLE, GITHUB]) expect(text).not.toContain(secret);
  });

  it('finds a token that straddles two read chunks once', async () => {
    const data = Buffer.concat([Buffer.alloc(1024 * 1024 - 10, 0x41), Buffer.from(` ${GITHUB} `), Buffer.alloc(100, 0x42)]);
    const ctx = await analyze(fixture({ 'usr/lib/libcloud.so': data }), [embeddedTokenRule]);
    expect(ctx.findings.map((f) => f.occurrences.map((o) => o.offset))).toEqual([[1024 * 1024 - 9]]);
  });

  it('finds tokens across the 64 KiB pieces each chunk is searched in, each once, at its offset', async () => {
    // one across a piece boundary, one at a piece's very start, one just before a chunk's end, in a 2.1 MiB file
    const at = [64 * 1024 - 20, 3 * 64 * 1024, 1024 * 1024 - 41 - 1];
    const data = Buffer.alloc(2 * 1024 * 1024 + 100_000, 0x2e);
    for (const [i, offset] of at.entries()) data.write(`${GITHUB.slice(0, -1)}${'xyz'[i]}`, offset, 'latin1');
    const ctx = await analyze(fixture({ 'usr/lib/libpieces.so': data }), [embeddedTokenRule]);
    expect(ctx.findings.flatMap((f) => f.occurrences.map((o) => o.offset)).sort((a, b) => a! - b!)).toEqual(at);
  });

  it('does not report an AWS key id without a secret, documentation examples, or token-like words', async () => {
    const ctx = await analyze(
      fixture({
        'etc/aws.conf': `key_id=${AWS_ID}\nregion=eu-west-1\n`,
        'etc/example.conf': `aws_access_key_id=AKIAIOSFODNN7EXAMPLE\naws_secret_access_key=${AWS_SECRET}\n`,
        'etc/words.txt': 'ghp_short xoxb-123 AIzaShort\n',
      }),
      [embeddedTokenRule],
    );
    expect(ctx.findings).toEqual([]);
  });
});

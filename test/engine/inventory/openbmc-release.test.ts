// OpenBMC images are recognised from their os-release (ID=openbmc-phosphor), with the target machine kept in the
// evidence. The texts are real /etc/os-release files as printed by `cat /etc/os-release` on running BMCs and
// posted publicly (sources per sample).
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureTrees, inventoryOfDirectory } from './support.js';

const { tree, cleanup } = fixtureTrees('openbmc-');
afterAll(cleanup);

const SAMPLES = [
  {
    // Posted to the openbmc mailing list (lists.ozlabs.org) in 2019 from an Intel S2600WF BMC.
    source: 'S2600WF, openbmc@lists.ozlabs.org 2019',
    text: 'ID="openbmc-phosphor"\nNAME="Phosphor OpenBMC (Phosphor OpenBMC Project Reference Distro)"\nVERSION="2.8.0-dev"\nVERSION_ID="2.8.0-dev-309-g2e155a0-dirty"\nPRETTY_NAME="Phosphor OpenBMC (Phosphor OpenBMC Project Reference Distro)\n2.8.0"\nBUILD_ID="2.8.0-dev"\nOPENBMC_TARGET_MACHINE="s2600wf"\n',
    version: '2.8.0-dev-309-g2e155a0-dirty',
    machine: 's2600wf',
    cpe: undefined,
  },
  {
    // From a Zaius (AST2500) BMC, in a public 2019 write-up found with the code search: a tagged release.
    source: 'zaius, 2019',
    text: 'ID="openbmc-phosphor"\nNAME="Phosphor OpenBMC (Phosphor OpenBMC Project Reference Distro)"\nVERSION="0.1.0"\nVERSION_ID="0.1.0"\nPRETTY_NAME="Phosphor OpenBMC (Phosphor OpenBMC Project Reference Distro)\n0.1.0"\nBUILD_ID="20190506124713"\nOPENBMC_TARGET_MACHINE="zaius"\n',
    version: '0.1.0',
    machine: 'zaius',
    cpe: 'cpe:2.3:o:openbmc-project:openbmc:0.1.0:*:*:*:*:*:*:*',
  },
  {
    // From a Bletchley BMC, in a public 2026 diagnostics log found with the code search (unquoted values, CPE_NAME and
    // EXTENDED_VERSION of newer builds).
    source: 'bletchley, 2026',
    text: 'ID=openbmc-phosphor\nNAME="Phosphor OpenBMC (Phosphor OpenBMC Project Reference Distro)"\nVERSION="3.1.0-dev"\nVERSION_ID=3.1.0-dev-739-gba9070d60b\nVERSION_CODENAME="styhead"\nPRETTY_NAME="Phosphor OpenBMC (Phosphor OpenBMC Project Reference Distro) 3.1.0-dev"\nCPE_NAME="cpe:/o:openembedded:openbmc-phosphor:3.1.0-dev-739-gba9070d60b"\nBUILD_ID="20260728025045"\nOPENBMC_TARGET_MACHINE="bletchley"\nEXTENDED_VERSION="3.1.0-dev-739-gba9070d60b"\n',
    version: '3.1.0-dev-739-gba9070d60b',
    machine: 'bletchley',
    cpe: undefined,
  },
];

describe('OpenBMC os-release', () => {
  it.each(SAMPLES.map((s) => [s.source, s] as const))('%s', async (_source, sample) => {
    const ctx = await inventoryOfDirectory(tree({ 'etc/os-release': sample.text }));
    const os = ctx.components.find((c) => c.type === 'operating-system');
    expect(os).toMatchObject({ name: 'openbmc-phosphor', version: sample.version });
    expect(os!.cpe).toBe(sample.cpe);
    expect(os!.evidence[0].match).toContain(`OPENBMC_TARGET_MACHINE=${sample.machine}`);
  });

  it('gives a development build no CPE version, and other distributions keep theirs', async () => {
    const debian = await inventoryOfDirectory(tree({ 'etc/os-release': 'ID=debian\nVERSION_ID="12"\n' }));
    expect(debian.components.find((c) => c.type === 'operating-system')?.cpe).toBe('cpe:2.3:o:debian:debian_linux:12:*:*:*:*:*:*:*');
  });
});

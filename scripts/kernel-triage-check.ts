// Kernel triage of CVE 5 records against an unpacked image or kernel package, for hand-checking the verdicts:
//   npx tsx scripts/kernel-triage-check.ts <root directory> <CVE 5 records: a JSON array or one record per file>...
// It reads the kernel evidence as a scan does (gatherKernelEvidence: configuration, symbols, modules) and prints,
// per record, the verdict, the rule and the reason (whether or not the record's versions hold the kernel's: this is
// the triage alone), then how many records each verdict got and how many each rule removed.
import { readFileSync } from 'node:fs';
import { FileIndex } from '../src/engine/file-index.js';
import { cve5ToRecord } from '../src/engine/vulns/cve5.importer.js';
import { gatherKernelEvidence } from '../src/engine/vulns/kernel-evidence.js';
import { kernelApplicability } from '../src/engine/vulns/kernel-triage.js';

const [root, ...files] = process.argv.slice(2);
if (!root || files.length === 0) throw new Error('usage: kernel-triage-check.ts <root directory> <CVE 5 record files>...');

const evidence = await gatherKernelEvidence(await FileIndex.fromDirectory(root), []);
console.log(`evidence: ${[
  evidence.config ? `configuration ${evidence.config.source} (${Object.keys(evidence.config.options).length} options)` : 'no configuration',
  evidence.symbols ? `symbols ${evidence.symbols.source} (${evidence.symbols.names.length})` : 'no symbols',
  evidence.modules ? `modules ${evidence.modules.source} (${evidence.modules.shipped.length} shipped, ${evidence.modules.builtin.length} built in)` : 'no modules',
].join('; ')}`);
const verdicts: Record<string, number> = {};
const removed: Record<string, number> = {};
for (const file of files) {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  for (const raw of Array.isArray(parsed) ? parsed : [parsed]) {
    const record = cve5ToRecord(raw);
    const a = kernelApplicability(record.programFiles ?? [], evidence, record.programRoutines ?? []);
    verdicts[a.verdict] = (verdicts[a.verdict] ?? 0) + 1;
    if (a.verdict === 'not-applicable') removed[a.rule!] = (removed[a.rule!] ?? 0) + 1;
    console.log(`${record.id}\t${a.verdict}\t${a.rule}\t${a.reason}`);
  }
}
console.log(`verdicts: ${JSON.stringify(verdicts)}; removed by rule: ${JSON.stringify(removed)}`);

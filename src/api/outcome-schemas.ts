// Wire shapes of a scan's outcome: its summary, the image's analysis state and one problem, with the outcome rules
// written once and used in the OpenAPI descriptions of the Scan, Image and problems route schemas.
import { Type } from '@fastify/type-provider-typebox';

export const OUTCOME_RULES =
  'Outcome rules: an image in which nothing is recognised and nothing is analysable on its own (not a firmware ' +
  'container, executable, key, certificate or script) ends `failed` with a reason naming what was seen, e.g. "no known ' +
  'firmware format; the file looks like ASCII text". A container that breaks part way (a truncated gzip, xz or ' +
  'SquashFS), a limit hit or a file that could not be written ends `done` with an incomplete analysis: ' +
  '`summary.complete` false and `summary.incompleteReasons` saying why. The disk filling up while extracting ends ' +
  '`failed` ("out of disk space while extracting").';

export const LEVEL_RULES =
  'Problem levels: `info` (a carving candidate inside other data that turned out not to be its format, a loop ' +
  'skipped), `warning` (something partly read), `error` (a container that could not be decoded, a limit hit, a file ' +
  'that could not be written, an analyzer that failed). Any `error` makes the analysis incomplete.';

const Counts = Type.Object({ info: Type.Integer(), warning: Type.Integer(), error: Type.Integer() });

export const ScanSummarySchema = Type.Object(
  {
    filesExtracted: Type.Integer({ description: 'Extracted files, folders and links' }),
    bytesExtracted: Type.Integer({ description: 'Bytes of the extracted files kept' }),
    formats: Type.Record(Type.String(), Type.Integer(), { description: 'Recognised chunks per format (handler id)' }),
    coverage: Type.Number({ minimum: 0, maximum: 1, description: "Share of the image's own bytes inside chunks of a recognised format" }),
    problems: Type.Object(Counts.properties, { description: 'Problems counted by level' }),
    phases: Type.Record(Type.String(), Type.Integer(), { description: 'Milliseconds per phase: hash, unpack, then each analysis phase' }),
    durationMs: Type.Integer(),
    complete: Type.Boolean({ description: 'False when any problem has level error: part of the image was not analysed' }),
    incompleteReasons: Type.Array(Type.String(), { description: 'Why the analysis is incomplete, one line per cause; empty when complete' }),
    kernelTriage: Type.Optional(Type.Object({
      applicable: Type.Integer({ description: 'Kernel findings whose affected code is built' }),
      'not-applicable': Type.Integer({ description: 'Kernel findings whose affected code is not built (rejected as vulnerable_code_not_present)' }),
      unknown: Type.Integer({ description: 'Kernel findings the evidence does not decide' }),
      removedByRule: Type.Record(Type.String(), Type.Integer(), { description: 'Not-applicable kernel findings per triage rule (config-option-off, other-architecture)' }),
    }, { description: 'Kernel CVE triage at scan time (re-matching may change the findings since; the image counts are current); absent when the image has no kernel findings' })),
    ruleSet: Type.Optional(Type.String({ description: "Identity (sha256:…) of the malicious-code rules the scan ran with: built-in, the organisation's enabled custom rules and its disabled built-ins" })),
    cache: Type.Optional(Type.Object({
      image: Type.Union([Type.Literal('hit'), Type.Literal('miss')], { description: 'hit: the image was analysed before in this organisation with the same engine, rules, debug files and limits, and that analysis was reused (vulnerabilities are matched again)' }),
      filesReused: Type.Integer({ description: "Per-file results (one file in one analyzer) reused from earlier scans of the organisation's images" }),
      filesAnalysed: Type.Integer({ description: 'Per-file results computed by this scan and kept' }),
    }, { description: "How much of the analysis came from the organisation's analysis cache; absent when the scan ran without it" })),
  },
  { description: `What a person needs to know before trusting the scan's result; present once the scan is done. ${OUTCOME_RULES} ${LEVEL_RULES}` },
);

export const ImageAnalysisSchema = Type.Object(
  {
    scanId: Type.String({ description: 'The latest scan, which this describes' }),
    state: Type.String({ description: 'done or failed' }),
    complete: Type.Boolean({ description: 'True only for a done scan whose analysis is complete' }),
    reasons: Type.Array(Type.String(), { description: "Why not complete: the summary's incompleteReasons, or the failed scan's error" }),
  },
  { description: `Whether the image's latest finished scan can be trusted; absent while the latest scan is new or running. ${OUTCOME_RULES}` },
);

export const ProblemSchema = Type.Object({
  level: Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('error')]),
  kind: Type.String({ description: 'error | limit | warning | skipped: what happened' }),
  source: Type.String({ description: 'Handler, identifier or analyzer that recorded it' }),
  path: Type.Optional(Type.String({ description: 'Path in the extracted tree' })),
  offset: Type.Optional(Type.Integer({ description: 'Byte offset in that file' })),
  message: Type.String(),
});

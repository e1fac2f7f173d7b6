// Cloud and service credentials recognisable by their published formats, in any file (binaries included):
// AWS access key ids (AKIA…, reported only with a 40-character secret key within 256 bytes), Google API keys
// (AIza…), Slack tokens (xoxb-/xoxp-/xoxa-/xoxr-/xoxs-) and incoming webhooks, GitHub tokens (ghp_/gho_/ghu_/ghs_/ghr_,
// github_pat_). Documentation examples (AWS's AKIAIOSFODNN7EXAMPLE, anything with EXAMPLE or XXXX) are skipped.
import { escapeRegExp } from '../regexp-escape.js';

export interface TokenKind {
  id: string;
  label: string;
  pattern: RegExp;
  /** Literals one of which every match of the pattern contains (the search's prefilter). */
  anchors: readonly string[];
  /** Extra evidence the match needs (the AWS secret key near its id). */
  confirm?: (text: string, index: number, match: string) => boolean;
}

const AWS_SECRET = /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/;

export const TOKEN_KINDS: readonly TokenKind[] = [
  {
    id: 'aws-access-key',
    label: 'AWS access key',
    pattern: /(?<![A-Z0-9])AKIA[0-9A-Z]{16}(?![A-Z0-9])/g,
    anchors: ['AKIA'],
    confirm: (text, index, match) => {
      const around = text.slice(Math.max(0, index - 256), index) + ' ' + text.slice(index + match.length, index + match.length + 256);
      return AWS_SECRET.test(around);
    },
  },
  { id: 'google-api-key', label: 'Google API key', pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g, anchors: ['AIza'] },
  {
    id: 'slack-token',
    label: 'Slack token',
    pattern: /(?<![A-Za-z0-9])xox[abprs]-[0-9]{8,13}-[0-9A-Za-z-]{8,}/g,
    anchors: ['xoxa-', 'xoxb-', 'xoxp-', 'xoxr-', 'xoxs-'],
  },
  {
    id: 'slack-webhook',
    label: 'Slack webhook',
    pattern: /https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]{6,}\/B[A-Z0-9]{6,}\/[A-Za-z0-9]{20,}/g,
    anchors: ['hooks.slack.com/'],
  },
  {
    id: 'github-token',
    label: 'GitHub token',
    pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g,
    anchors: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
  },
  { id: 'github-token', label: 'GitHub fine-grained token', pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{82}(?![A-Za-z0-9_])/g, anchors: ['github_pat_'] },
];

/**
 * Any token's anchor: a text without one holds no token and is passed over after this one search, instead of a
 * search per pattern. Almost every chunk of a firmware image has none (5 of the 6,575 chunks of the 64 MB
 * benchmark image): its searches went from about 0.40 s to 0.25 s.
 */
const ANY_ANCHOR = new RegExp(TOKEN_KINDS.flatMap((kind) => kind.anchors).map(escapeRegExp).join('|'));

const PLACEHOLDER = /EXAMPLE|XXXX|xxxx|0{16}/;

export interface TokenMatch {
  kind: TokenKind;
  token: string;
  offset: number;
}

/** Tokens in `text` (latin1 of a file chunk); `base` is the chunk's offset in the file. */
export function findTokens(text: string, base: number): TokenMatch[] {
  const out: TokenMatch[] = [];
  if (!ANY_ANCHOR.test(text)) return out;
  for (const kind of TOKEN_KINDS) {
    for (const m of text.matchAll(kind.pattern)) {
      if (PLACEHOLDER.test(m[0])) continue;
      if (kind.confirm && !kind.confirm(text, m.index, m[0])) continue;
      out.push({ kind, token: m[0], offset: base + m.index });
    }
  }
  return out;
}

// Every token format is found through the anchor prefilter of findTokens (src/engine/weaknesses/tokens.ts), and
// text without an anchor gives nothing.
import { describe, expect, it } from 'vitest';
import { findTokens, TOKEN_KINDS } from '../../../src/engine/weaknesses/tokens.js';

// Built from parts so the source holds no token.
const SAMPLES: Record<string, string> = {
  'aws-access-key': `id=${'AKIA' + 'Q3EGDJ7HPLMRN2XW'} secret=${'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'Q3EGDJ7HPL'}`,
  'google-api-key': `key: ${'AIza' + 'SyB7d9X2kLmQ0wErTyUiOpAsDfGhJkLzXcV'}`,
  'slack-token': `token=${'xoxb' + '-123456789012-abcdefGHIJKL'}`,
  'slack-webhook': `url=${'https://hooks.slack.com/services/' + 'T0ABCDEF1/B0ABCDEF2/abcdefghijKLMNOPQRST1234'}`,
  'GitHub token': `auth ${'ghs_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`,
  'GitHub fine-grained token': `auth ${'github_pat_' + 'A'.repeat(22) + '_' + 'b'.repeat(59)}`,
};

describe('findTokens', () => {
  it('finds each token format, at its offset', () => {
    for (const [name, text] of Object.entries(SAMPLES)) {
      const found = findTokens(`padding ${text}\n`, 1000);
      expect(found, name).toHaveLength(1);
      const kind = TOKEN_KINDS.find((k) => k.id === name || k.label === name)!;
      expect(found[0]!.kind, name).toBe(kind);
      expect(kind.anchors.some((anchor) => found[0]!.token.includes(anchor)), name).toBe(true);
      expect(found[0]!.offset, name).toBe(1000 + 'padding '.length + text.indexOf(found[0]!.token));
    }
  });

  it('gives nothing for text without an anchor, and nothing for an anchor without a token', () => {
    expect(findTokens('ELF binary text with nothing of the kind: AKI A, xox-, gh_p\n'.repeat(1000), 0)).toEqual([]);
    expect(findTokens('AKIA AIza xoxb- ghp_ github_pat_ hooks.slack.com/', 0)).toEqual([]);
  });
});

// Rows for store tests: a product in a new organisation, with images that each have one finished scan whose
// inventory is given (BusyBox by default).
import type { Kysely } from 'kysely';
import type { Component } from '../../src/engine/types.js';
import { newId } from '../../src/ids.js';
import { ResultRepository } from '../../src/store/result.repository.js';
import type { Database } from '../../src/store/schema.js';

export const busybox = (version: string): Component => ({
  ref: `busybox@${version}`, name: 'busybox', version, type: 'application', confidence: 0.95,
  cpe: `cpe:2.3:a:busybox:busybox:${version}:*:*:*:*:*:*:*`, paths: ['rootfs/bin/busybox'],
  evidence: [{ path: 'rootfs/bin/busybox', method: 'version-signature', match: `BusyBox v${version}` }], foundBy: ['version-signatures'],
});

/** A product in a new organisation, and a way to add an image with one finished scan whose inventory is given. */
export async function productWithImages(db: Kysely<Database>) {
  const t = '2026-01-01T00:00:00.000Z';
  const org = newId();
  const product = newId();
  await db.insertInto('organisations').values({ id: org, name: `org-${org}`, create_time: t }).execute();
  await db.insertInto('products').values({ id: product, org_id: org, name: 'router', description: null, author_id: 'u', is_archived: 0, create_time: t, update_time: t }).execute();
  const image = async (created: string, version: string, components: Component[] = [busybox(version)]) => {
    const imageId = newId();
    const scanId = newId();
    await db.insertInto('images').values({
      id: imageId, product_id: product, org_id: org, name: `fw ${version}`, version, file_name: 'fw.bin', blob_key: 'k', size: 1,
      sha256: 'a', sha1: 'b', md5: 'c', detected_type: null, author_id: 'u', is_archived: 0, create_time: created, update_time: created,
    }).execute();
    await db.insertInto('scans').values({
      id: scanId, image_id: imageId, product_id: product, org_id: org, author_id: 'u', state: 'done', state_id: newId(), state_time: created,
      error: null, progress_phase: null, progress_percent: null, engine_version: '0.1.0', result_blob_key: null, create_time: created,
    }).execute();
    await new ResultRepository(db).store({ scanId, imageId, productId: product }, { components, findings: [], cryptoAssets: [] });
    return { imageId, scanId };
  };
  return { product, image };
}

// Debug-symbol files (PDB, ELF debug files) attached to an image after its upload; each queues a new scan.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { fetchBlob } from './api.js';
import { FormError } from './ui.js';

export function DebugFileUpload({ productId, imageId }: { productId: string; imageId: string }) {
  const [file, setFile] = useState<File>();
  const queries = useQueryClient();
  const attach = useMutation({
    mutationFn: async () => {
      const form = new FormData();
      form.set('file', file!, file!.name);
      await fetchBlob(`/api/v4/products/${productId}/images/${imageId}/files`, { method: 'POST', body: form });
    },
    onSuccess: async () => {
      setFile(undefined);
      await queries.invalidateQueries({ queryKey: ['image', imageId] });
      await queries.invalidateQueries({ queryKey: ['scans', imageId] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file) attach.mutate();
  };
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="debug-title">
      <h3 id="debug-title">Add debug symbols</h3>
      <p className="muted">A PDB for a PE image, or an ELF debug file (matched by build-id): function names then name the unsafe calls. A new scan starts.</p>
      <label>Debug file <input type="file" onChange={(e) => setFile(e.target.files?.[0])} /></label>
      <button type="submit" disabled={!file || attach.isPending}>{attach.isPending ? 'Uploading…' : 'Attach and rescan'}</button>
      {attach.isSuccess && <p role="status">Attached; a new scan is queued.</p>}
      {attach.error && <FormError error={attach.error} />}
    </form>
  );
}

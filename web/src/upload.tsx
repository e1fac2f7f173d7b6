// Upload of a firmware image straight from the browser to the pre-signed URL (progress, speed, cancel), then the
// finalize call that creates the image and queues its scan. Drag and drop or a file picker.
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { api, expectData } from './api.js';
import { navigate } from './router.js';
import { FormError } from './ui.js';
import { byteSize } from '../../src/format/byte-size.js';

type Progress = { sent: number; total: number; bytesPerSecond: number };

/** PUTs `file` to `url` with progress events; resolves when the server stored it. */
function putFile(url: string, file: File, onProgress: (p: Progress) => void, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const started = performance.now();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (event) => {
      const seconds = Math.max((performance.now() - started) / 1000, 0.001);
      onProgress({ sent: event.loaded, total: event.lengthComputable ? event.total : file.size, bytesPerSecond: event.loaded / seconds });
    };
    xhr.onload = () => (xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new Error(`the upload was refused: ${xhr.status} ${xhr.responseText.slice(0, 300)}`)));
    xhr.onerror = () => reject(new Error('the upload failed (network error)'));
    xhr.onabort = () => reject(new DOMException('cancelled', 'AbortError'));
    signal.addEventListener('abort', () => xhr.abort());
    xhr.send(file);
  });
}

export function ImageUpload({ productId }: { productId: string }) {
  const [file, setFile] = useState<File>();
  const [name, setName] = useState('');
  const [version, setVersion] = useState('');
  const [progress, setProgress] = useState<Progress>();
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [dragging, setDragging] = useState(false);
  const abort = useRef<AbortController | undefined>(undefined);
  const queries = useQueryClient();
  const busy = !!abort.current;

  const choose = (chosen: File | undefined) => {
    if (!chosen) return;
    setFile(chosen);
    if (!name) setName(chosen.name.replace(/\.[^.]+$/, ''));
    setError(undefined);
  };

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    choose(event.dataTransfer.files[0]);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return setError('Choose a firmware image file first.');
    const controller = new AbortController();
    abort.current = controller;
    setError(undefined);
    try {
      setStatus('Preparing the upload…');
      const target = expectData(await api.GET('/api/v4/products/{productId}/tempFiles:generateUploadUrl', { params: { path: { productId } } }));
      setStatus('Uploading…');
      await putFile(target.uploadUrl, file, setProgress, controller.signal);
      setStatus('Starting the scan…');
      const image = expectData(await api.POST('/api/v4/products/{productId}/images:upload', {
        params: { path: { productId }, query: { tempFileId: target.id, imageName: name || file.name, filename: file.name, ...(version ? { version } : {}) } },
      }));
      await queries.invalidateQueries({ queryKey: ['images', productId] });
      navigate(`/products/${productId}/images/${image.id}`);
    } catch (failure) {
      setError(failure instanceof DOMException && failure.name === 'AbortError' ? new Error('Upload cancelled. Nothing was stored.') : failure);
      setStatus(undefined);
      setProgress(undefined);
    } finally {
      abort.current = undefined;
    }
  };

  const percent = progress && progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 0;
  return (
    <form className="upload" onSubmit={submit} aria-labelledby="upload-title">
      <h2 id="upload-title">Upload an image</h2>
      <div
        className={`dropzone${dragging ? ' dragging' : ''}`}
        onDragOver={(e) => { e.preventDefault(); setDragging(true); }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <p>{file ? <><strong>{file.name}</strong> ({byteSize(file.size)})</> : 'Drop a firmware image here, or choose a file.'}</p>
        <label className="button">Choose file<input className="sr-only" type="file" onChange={(e) => choose(e.target.files?.[0])} disabled={busy} /></label>
      </div>
      <div className="fields">
        <label>Image name <input value={name} onChange={(e) => setName(e.target.value)} required disabled={busy} /></label>
        <label>Version <input value={version} onChange={(e) => setVersion(e.target.value)} placeholder="e.g. 1.2.0" disabled={busy} /></label>
      </div>
      {progress && (
        <div className="progress-line" aria-live="polite">
          <progress max={100} value={percent} aria-label="Upload progress">{percent}%</progress>
          <span>{percent}% · {byteSize(progress.sent)} of {byteSize(progress.total)} · {byteSize(progress.bytesPerSecond)}/s</span>
        </div>
      )}
      {status && <p role="status">{status}</p>}
      {error !== undefined && <FormError error={error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || !file}>Upload and scan</button>
        {busy && <button type="button" onClick={() => abort.current?.abort()}>Cancel upload</button>}
      </div>
    </form>
  );
}

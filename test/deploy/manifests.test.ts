// The Kubernetes example (deploy/kubernetes/firmscope.yaml) checked against the Kubernetes OpenAPI schemas by
// kubernetes-models (no cluster or container runtime runs here), and its settings against the service's own
// configuration: every variable it sets is one loadConfig accepts.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Secret, Service } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { projectRoot } from '../support/cli-process.js';

const documents = parseAllDocuments(readFileSync(join(projectRoot, 'deploy', 'kubernetes', 'firmscope.yaml'), 'utf8')).map((d) => d.toJS() as Record<string, any>);
const MODELS: Record<string, new (data: any) => { validate(): void }> = { Deployment, Secret, Service };

describe('Kubernetes example', () => {
  it('has a Secret, two Deployments (API servers, workers) and a Service, each valid for its schema', () => {
    expect(documents.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual(['Secret/firmscope', 'Deployment/firmscope-api', 'Deployment/firmscope-worker', 'Service/firmscope-api']);
    for (const document of documents) {
      const Model = MODELS[document.kind]!;
      expect(() => new Model(document).validate(), `${document.kind}/${document.metadata.name}`).not.toThrow();
    }
    const broken = structuredClone(documents[1]!);
    broken.spec.replicas = 'two';
    expect(() => new Deployment(broken).validate()).toThrow();
  });

  it('configures servers and workers with settings the service accepts', () => {
    const secret = documents[0]!.stringData as Record<string, string>;
    // The signing key's Secret is made with kubectl from a key generated on the spot (the file's header says how).
    const signingKey = generateKeyPairSync('rsa', { modulusLength: 3072 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const secrets: Record<string, Record<string, string>> = { firmscope: secret, 'firmscope-signing-key': { 'signing-key.pem': signingKey } };
    type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } };
    const valueOf = (e: EnvVar) => e.value ?? secrets[e.valueFrom!.secretKeyRef.name]![e.valueFrom!.secretKeyRef.key]!;
    for (const deployment of documents.filter((d) => d.kind === 'Deployment')) {
      const container = deployment.spec.template.spec.containers[0];
      const env = Object.fromEntries((container.env as EnvVar[]).map((e) => [e.name, valueOf(e)]));
      const config = loadConfig({ ...secret, ...env });
      expect(config.s3).toMatchObject({ bucket: 'firmscope-blobs', prefix: 'production' });
      if (container.args[0] === 'worker') {
        expect(config.workerPort).toBe(9464);
        expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(config.shutdownGraceSeconds);
      } else {
        expect(config.workers).toBe(0);
        expect(config.uploadSecret).toBeTruthy();
        expect(config.signingKeyPem).toBe(signingKey.trim());
      }
    }
  });
});

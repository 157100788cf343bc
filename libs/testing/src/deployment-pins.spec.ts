import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './service-process';

/**
 * What runs in production is named exactly (docs/security.md, Images): third-party images by digest, so a pull
 * never brings a different build of the same tag; our own images by a release version, never a
 * moving tag. A new image line that forgets it fails here.
 */
const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');
const DIGEST = /@sha256:[0-9a-f]{64}$/;

describe('deployment files pin what they run', () => {
  it('docker-compose.yml: every pulled image is pinned by digest; built ones carry a local tag', () => {
    const lines = read('docker-compose.yml').split('\n');
    const images = lines.map((l) => /^ {4}image: (\S+)/.exec(l)?.[1]).filter((i): i is string => i !== undefined);
    expect(images.length).toBeGreaterThanOrEqual(10);
    for (const image of images) {
      if (image.startsWith('debt-collection-')) expect(image).toMatch(/^debt-collection-[a-z-]+:local$/);
      else expect(image).toMatch(DIGEST);
    }
  });

  it('docker/Dockerfile: the base image is a Node LTS (22 or 24) pinned by digest', () => {
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(read('docker/Dockerfile'))?.[1];
    expect(base).toMatch(/^node:(22|24)[-.a-z0-9]*@sha256:[0-9a-f]{64}$/);
    const froms = read('docker/Dockerfile').split('\n').filter((l) => l.startsWith('FROM '));
    for (const from of froms) expect(from).toMatch(/^FROM (\$\{NODE_IMAGE\}|[a-z-]+) AS [a-z-]+$/);
  });

  it('Kubernetes: our images carry an immutable release tag or a digest, never latest', () => {
    // The base and every overlay (deploy/kubernetes/base, overlays/*).
    const files = readdirSync(path.join(REPO_ROOT, 'deploy/kubernetes'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => `deploy/kubernetes/${f}`);
    const tags: string[] = [];
    for (const file of files) {
      for (const match of read(file).matchAll(/^\s+(?:image|newTag): "?([^"\s]+)"?$/gm)) tags.push(match[1]);
    }
    expect(tags.length).toBeGreaterThanOrEqual(10);
    for (const tag of tags) {
      expect(tag).not.toMatch(/(^|:)latest$/);
      if (tag.includes(':') || tag.includes('@')) expect(tag).toMatch(/^[a-z0-9./-]+(:\d+\.\d+\.\d+|@sha256:[0-9a-f]{64})$/);
      else expect(tag).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });
});

// Smoke test on real code: every .py file of the installed torchvision parses without throwing, and known
// facts come out (ResNet's base and forward, torchvision.models' star imports).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { DEBIAN_TORCHVISION, describeOnDebianTorchvision } from '../helpers/python.ts';
import type { ModuleFacts } from '../../pipeline/parse/facts.ts';
import { parseModule } from '../../pipeline/parse/parse-module.ts';

const ROOT = DEBIAN_TORCHVISION;

function pyFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const abs = join(dir, name);
    if (statSync(abs).isDirectory()) out.push(...pyFiles(abs));
    else if (name.endsWith('.py')) out.push(abs);
  }
  return out;
}

describeOnDebianTorchvision('installed torchvision', () => {
  const facts = new Map<string, ModuleFacts>();

  it('parses every file without throwing, with spans inside the file', () => {
    for (const file of pyFiles(ROOT)) {
      const bytes = readFileSync(file);
      const f = parseModule(bytes);
      facts.set(relative(ROOT, file), f);
      for (const s of f.statements) {
        expect(s.span.endByte).toBeLessThanOrEqual(bytes.length);
        for (const r of [...s.eager, ...s.deferred]) {
          for (const o of r.occurrences) expect(bytes.subarray(o.startByte, o.endByte).toString('utf8')).toBe(r.name);
        }
      }
    }
    expect(facts.size).toBeGreaterThan(100);
  });

  it('finds ResNet: base nn.Module, a forward, its helpers as references', () => {
    const f = facts.get('models/resnet.py')!;
    const resnet = f.classes.find((c) => c.qualname === 'ResNet')!;
    expect(resnet.bases.map((b) => b.dotted)).toEqual(['nn.Module']);
    expect(resnet.methods.map((m) => m.name)).toContain('forward');
    expect(resnet.methods.find((m) => m.name === 'forward')!.abstract).toBe(false);
    const stmt = f.statements[resnet.statementIndex];
    expect(stmt.binds).toEqual(['ResNet']);
    expect(stmt.eager.map((r) => r.name)).toContain('nn');
    const deferred = stmt.deferred.map((r) => r.name);
    expect(deferred).toContain('conv1x1');
    expect(deferred).toContain('torch');
    expect(
      f.imports.some((i) => i.kind === 'import' && i.names.some((n) => n.name === 'torch.nn' && n.bound === 'nn')),
    ).toBe(true);
  });

  it('reads torchvision.models/__init__.py star imports', () => {
    const f = facts.get('models/__init__.py')!;
    const stars = f.imports.filter((i) => i.star);
    expect(stars.length).toBeGreaterThan(5);
    expect(stars.every((i) => i.level === 1)).toBe(true);
  });
});

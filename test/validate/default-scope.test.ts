// The default scope a block builds under (pipeline/validate/python/nnblocks_runner/scope.py), through the real
// runner, sandbox and torch: OpenMMLab's tools set the package's scope before they build (`init_default_scope`), and
// a root registry asked for a name finds it only in that scope's child registry.
import { beforeAll, describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { py } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from './helpers.ts';

/** mmengine's registry tree in small: a root, one child per scope, and the current default scope. */
const registry = py`
  import contextlib
  import torch.nn as nn
  class DefaultScope:
      _instances = []
      def __init__(self, scope_name):
          self.scope_name = scope_name
      @classmethod
      def get_instance(cls, name, scope_name):
          cls._instances.append(cls(scope_name))
          return cls._instances[-1]
      @classmethod
      def get_current_instance(cls):
          return cls._instances[-1] if cls._instances else None
      @classmethod
      @contextlib.contextmanager
      def overwrite_default_scope(cls, scope_name):
          yield
  class Registry:
      def __init__(self, scope, parent=None):
          self._scope, self._children, self._modules = scope, {}, {}
          if parent is not None:
              parent._children[scope] = self
      def register_module(self):
          def add(cls):
              self._modules[cls.__name__] = cls
              return cls
          return add
      def build(self, cfg):
          current = DefaultScope.get_current_instance()
          registry = self._children.get(current.scope_name, self) if current else self
          kind = cfg['type']
          if kind not in registry._modules:
              raise KeyError(f'{kind} is not in the {registry._scope}::model registry')
          return registry._modules[kind]()
  ROOT = Registry('engine')
  MODELS = Registry('scoped', parent=ROOT)
  @MODELS.register_module()
  class Thing(nn.Module):
      def forward(self, x):
          return x * 2
`;

/** A block that builds its part through the root registry: `ROOT.build(dict(type='Thing'))`. */
const builds =
  registry +
  py`
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.thing = ROOT.build(dict(type='Thing'))
        def forward(self, x):
            return self.thing(x)
  `;

const fixtures = {
  // Its package (`scoped`, the fixture's module) has a registry of that scope: built under it, the root finds Thing.
  scoped: builds,
  // No registry has its package's scope (`unscoped`): nothing is set, and the root alone does not find Thing.
  unscoped: builds,
};

describe("a block builds under its package's default scope", () => {
  let r: Record<string, ValidationRecord>;
  beforeAll(async () => {
    const { items } = fixtureItems(fixtures);
    r = byName(await validateBlocks(items, baseOptions()));
  }, 240_000);

  it("finds a registered name in its package's child registry", () => {
    expect(r.scoped.status, r.scoped.failureDetail ?? undefined).toBe('passed');
  });

  it('sets no scope for a package no registry is named after', () => {
    expect(r.unscoped.status).not.toBe('passed');
    expect(r.unscoped.stages.at(-1)?.error).toContain('Thing is not in the engine::model registry');
  });
});

// Canonical configurations are built on torch's meta device (canonical.make; docs/validate.md, "Canonical
// configurations"): no memory, no fills. Under `with torch.device("meta")` torch.nn.init's fills call themselves again
// through the device's torch-function mode, by keyword (`constant_(tensor=t, val=0.0)`); the stand-in that skips them
// must take that call too, or every model that initialises its weights (nn.MultiheadAttention's constant_ among
// them) falls back to a CPU build: vit_h_14's 632 M parameters, 2.5 GB allocated to count them.
import { describe, expect, it } from 'vitest';
import { inRunner, torch2 } from './helpers.ts';

describe('canonical builds on the meta device', () => {
  it('builds a model whose constructor initialises its weights on meta, with the count of a CPU build', (ctx) => {
    if (!torch2()) return ctx.skip(); // torch 1.13's device is no context manager: CPU builds only
    const out = inRunner<{ devices: string[]; builtOn: string; params: number; reference: number }>([
      'from nnblocks_runner import canonical',
      'class Block(torch.nn.Module):',
      '    def __init__(self, dim=64):',
      '        super().__init__()',
      '        self.attn = torch.nn.MultiheadAttention(dim, 4)',
      '        self.proj = torch.nn.Linear(dim, dim)',
      '        torch.nn.init.xavier_uniform_(self.proj.weight)',
      '        torch.nn.init.constant_(tensor=self.proj.bias, val=0.0)',
      '        self.proj.weight.data.normal_(0, 0.02)',
      '    def forward(self, x):',
      '        return self.proj(self.attn(x, x, x)[0])',
      'def block_big(): return Block(dim=128)',
      'with canonical.without_init():',
      '    m, built_on = canonical.make(Block, {"kwargs": {}, "refs": [], "builder": "block_big"}, 0)',
      'print(json.dumps({"devices": sorted({p.device.type for p in m.parameters()}), "builtOn": built_on,',
      '                  "params": sum(p.numel() for p in m.parameters()),',
      '                  "reference": sum(p.numel() for p in Block(dim=128).parameters())}))',
    ]);
    expect(out.devices).toEqual(['meta']);
    expect(out.builtOn).toBe('meta');
    expect(out.params).toBe(out.reference);
  });

  it('builds torchvision vit_b_16 on meta and counts its published figures', (ctx) => {
    if (!torch2()) return ctx.skip();
    const out = inRunner<{ devices: string[]; figures: unknown[] }>([
      'from nnblocks_runner import canonical',
      'import torchvision.models.vision_transformer as vt',
      'c = {"kwargs": {}, "refs": [], "builder": "vit_b_16"}',
      'with canonical.without_init():',
      '    m, _ = canonical.make(vt.VisionTransformer, c, 0)',
      'figures = canonical.canonical(vt.VisionTransformer, [c], 0, canonical.monotonic() + 60)',
      'print(json.dumps({"devices": sorted({p.device.type for p in m.parameters()}), "figures": figures}))',
    ]);
    expect(out.devices).toEqual(['meta']);
    expect(out.figures).toEqual([
      expect.objectContaining({ builder: 'vit_b_16', params: 86_567_656, outputs: [[1, 1000]] }),
    ]);
  });
});

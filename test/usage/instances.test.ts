// What a block asks of the modules it is handed (usage/instances.ts), case by case: a class body, its required
// parameters, the slots read off it, and why. Then which providers fit a slot.
import { describe, expect, it } from 'vitest';
import {
  fit,
  forwardReturns,
  instanceSlots,
  providerMembers,
  type InstanceSlot,
} from '../../pipeline/usage/instances.ts';
import { py } from '../helpers/tree.ts';

const slots = (text: string, ...params: (string | [string, string])[]) =>
  instanceSlots(
    text,
    params.map((p) => (typeof p === 'string' ? { name: p } : { name: p[0], annotation: p[1] })),
  );

describe('instance slots', () => {
  it("reads attributes off the parameter and off the attribute it is stored in, and sees it called (DETR's shape)", () => {
    const text = py`
      class DETR(nn.Module):
          def __init__(self, backbone, transformer, num_classes):
              self.backbone = backbone
              self.transformer = transformer
              hidden_dim = transformer.d_model
              self.input_proj = nn.Conv2d(backbone.num_channels, hidden_dim, kernel_size=1)
          def forward(self, samples):
              features, pos = self.backbone(samples)
              hs = self.transformer(self.input_proj(features[-1]), None, self.query_embed.weight, pos[-1])[0]
    `;
    expect(slots(text, 'backbone', 'transformer', 'num_classes')).toEqual([
      // `features, pos = self.backbone(samples)` unpacks it; `self.transformer(...)[0]` indexes it by position
      { param: 'backbone', attrs: ['num_channels'], called: true, config: false, outputs: 'sequence' },
      { param: 'transformer', attrs: ['d_model'], called: true, config: false, outputs: 'sequence' },
      // num_classes: a number, never read as a module
    ]);
  });

  it("leaves out nn.Module's own attributes: every module has them", () => {
    const text = py`
      class Wrap(nn.Module):
          def __init__(self, body):
              self.body = body
              self.body.eval()
              n = sum(p.numel() for p in self.body.parameters())
    `;
    expect(slots(text, 'body')).toEqual([]);
  });

  it('reads a registry build as a config slot, and what is read off the module built from it', () => {
    const text = py`
      class ImageClassifier(BaseClassifier):
          def __init__(self, backbone: dict, neck: Optional[dict], head):
              self.backbone = MODELS.build(backbone)
              self.neck = build_neck(neck)
              self.head = head
              c = self.backbone.out_channels
    `;
    expect(slots(text, ['backbone', 'dict'], ['neck', 'Optional[dict]'], 'head')).toEqual([
      { param: 'backbone', attrs: ['out_channels'], called: false, config: true },
      { param: 'neck', attrs: [], called: false, config: true },
      // head: stored and never used here — nothing says it is a module
    ]);
  });

  it('keeps class-valued names out unless attributes are read off them (`block(...)` builds a layer)', () => {
    const text = py`
      class ResNet(nn.Module):
          def __init__(self, block, layers, norm_layer):
              self.layer1 = block(64, 64)
              self.bn = norm_layer(64)
    `;
    expect(slots(text, 'block', 'layers', 'norm_layer')).toEqual([]);
  });

  it('takes a parameter annotated with a class as a slot of that class, read or not', () => {
    const text =
      'class FPN(Backbone):\n    def __init__(self, bottom_up: Backbone, in_features: List[str]):\n        pass\n';
    expect(slots(text, ['bottom_up', 'Backbone'], ['in_features', 'List[str]'])).toEqual([
      { param: 'bottom_up', attrs: [], called: false, config: false, type: 'Backbone' },
    ]);
  });

  it("reads the parameter's own name in __init__ only: elsewhere it is another variable (DETR's SetCriterion)", () => {
    const init = py`
      def __init__(self, matcher, losses):
          self.matcher = matcher
          self.losses = losses
    `;
    const text = py`
      class SetCriterion(nn.Module):
          ${init}
          def forward(self, outputs, targets):
              indices = self.matcher(outputs, targets)
              losses = {}
              for loss in self.losses:
                  losses.update(self.get_loss(loss, outputs, targets, indices))
    `;
    expect(instanceSlots(text, [{ name: 'matcher' }, { name: 'losses' }], init)).toEqual([
      { param: 'matcher', attrs: [], called: true, config: false },
    ]);
  });

  it("reads the result by key through a variable (torchvision's IntermediateLayerGetter feeding an FPN)", () => {
    const text = py`
      class BackboneWithFPN(nn.Module):
          def __init__(self, body, fpn_channels):
              self.body = body
          def forward(self, x):
              feats = self.body(x)
              return feats["0"]
    `;
    expect(slots(text, 'body', 'fpn_channels')).toEqual([
      { param: 'body', attrs: [], called: true, config: false, outputs: 'mapping' },
    ]);
  });

  it('skips a parameter annotated with a plain type (inference guesses those)', () => {
    const text = 'class A(nn.Module):\n    def __init__(self, dim: int):\n        self.x = dim.bit_length()\n';
    expect(slots(text, ['dim', 'int'])).toEqual([]);
  });
});

describe('providers that fit a slot', () => {
  const slot = (over: Partial<InstanceSlot>): InstanceSlot => ({
    param: 'backbone',
    attrs: [],
    called: true,
    config: false,
    ...over,
  });
  const members = providerMembers(
    py`
      class Joiner(nn.Sequential):
          strides = [32]
          def __init__(self, backbone, position_embedding):
              self.num_channels: int = backbone.num_channels
          def forward(self, x):
              return x
    `,
    ['__init__', 'forward'],
    ['strides'],
  );

  it('reads `self.x = ...` (annotated too), methods and class attributes', () => {
    expect([...members].sort()).toEqual(['__init__', 'forward', 'num_channels', 'strides']);
  });

  it('needs every attribute the block reads; more matched attributes fit better', () => {
    expect(fit(slot({ attrs: ['num_channels'] }), 'Joiner', { members, registered: false, bases: [] })).toBe(2);
    expect(fit(slot({ attrs: ['num_channels', 'strides'] }), 'Joiner', { members, registered: false, bases: [] })).toBe(
      4,
    );
    expect(fit(slot({ attrs: ['out_channels'] }), 'Joiner', { members, registered: false, bases: [] })).toBeNull();
  });

  it("with no attribute read, takes a class whose name shares the parameter's words", () => {
    expect(fit(slot({}), 'ResNetBackbone', { members, registered: false, bases: [] })).toBe(1);
    expect(fit(slot({}), 'Joiner', { members, registered: false, bases: [] })).toBeNull();
  });

  it('an annotated slot takes the class it names or a subclass (`backbone: Backbone` in detectron2)', () => {
    const typed = slot({ type: 'Backbone' });
    expect(fit(typed, 'ResNet', { members, registered: false, bases: ['Backbone', 'Module'] })).toBe(0);
    expect(fit(typed, 'Backbone', { members, registered: false, bases: ['Module'] })).toBe(1);
    expect(fit(typed, 'ResNetBackbone', { members, registered: false, bases: ['Module'] })).toBeNull();
  });

  it('reads what a forward returns: a dict, an OrderedDict bound first, a list, a tuple; a tensor says nothing', () => {
    expect(forwardReturns('def forward(self, x):\n    return {"0": x}\n')).toBe('mapping');
    expect(forwardReturns('def forward(self, x):\n    out = OrderedDict()\n    out["0"] = x\n    return out\n')).toBe(
      'mapping',
    );
    expect(forwardReturns('def forward(self, x):\n    outs = []\n    outs.append(x)\n    return outs\n')).toBe(
      'sequence',
    );
    expect(forwardReturns('def forward(self, x):\n    return x, self.pos(x)\n')).toBe('sequence');
    expect(forwardReturns('def forward(self, x):\n    return self.conv(x)\n')).toBeUndefined();
  });

  it('a block that reads the result by key takes no module returning a list; the same kind fits better', () => {
    const keyed = slot({ attrs: ['num_channels'], outputs: 'mapping' });
    expect(fit(keyed, 'Joiner', { members, registered: false, bases: [], returns: 'sequence' })).toBeNull();
    expect(fit(keyed, 'Joiner', { members, registered: false, bases: [], returns: 'mapping' })).toBe(3);
    expect(fit(keyed, 'Joiner', { members, registered: false, bases: [] })).toBe(2);
  });

  it('a config slot takes registered classes only', () => {
    expect(fit(slot({ config: true }), 'TinyBackbone', { members, registered: false, bases: [] })).toBeNull();
    expect(fit(slot({ config: true }), 'TinyBackbone', { members, registered: true, bases: [] })).toBe(1);
  });
});

// The cause table (pipeline/contract/cause-groups.ts): blocks that did not pass, grouped as the NN-RAG paper groups
// its failures, plus our own groups. Each row a real failure — from the paper corpus and the dev corpus on torch
// 2.14.1 unless said — with its status, class, stage, exception, message and diagnostics, the rule and why.
import { describe, expect, it } from 'vitest';
import { CAUSE_GROUPS, CAUSE_RULES, causeRule, type CauseFacts } from '../../pipeline/contract/cause-groups.ts';
import { paperFailureAnalysis } from '../../pipeline/catalog/paper.ts';

type Status = CauseFacts['status'];
/** A resolve diagnostic as the block spec carries it (resolve/closure-diagnostics.ts). */
const unresolved = (name: string, reason: string) => ({
  code: 'unresolved-name',
  message: `cannot resolve '${name}': ${reason}`,
});

interface Case {
  status: Status;
  cls: string;
  stage: string | null;
  type: string | null;
  message: string;
  diagnostics?: { code: string; message: string }[];
  missing?: string[];
  rule: string;
  why: string;
}

const cases: Case[] = [
  {
    status: 'blocked',
    cls: 'missing-dependency',
    stage: 'import',
    type: 'ModuleNotFoundError',
    message: "No module named 'cv2'",
    rule: 'blocked',
    why: 'opencv-python not installed here: ours, not a failure of the code',
  },
  {
    status: 'failed',
    cls: 'native-extension',
    stage: 'import',
    type: 'ModuleNotFoundError',
    message: "No module named 'mmcv._ext' (blocked: the block must not import its upstream package)",
    rule: 'native-extension',
    why: "mmcv's compiled ops",
  },
  {
    status: 'failed',
    cls: 'compile',
    stage: 'import',
    type: 'ImportError',
    message:
      "cannot import name 'Boxes' from partially initialized module 'structures' (most likely due to a circular import)",
    rule: 'circular-import',
    why: "Python's own message for an import cycle (checked before `unresolved-name` would take it)",
  },
  {
    status: 'failed',
    cls: 'unresolved-name',
    stage: 'import',
    type: 'NameError',
    message: "name 'ShapeSpec' is not defined",
    diagnostics: [unresolved('ShapeSpec', 'import cycle')],
    rule: 'cycle-name',
    why: 'resolve reached ShapeSpec only through an import cycle',
  },
  {
    status: 'failed',
    cls: 'needs-arguments',
    stage: 'build',
    type: 'NameError',
    message: "name 'SEBlock' is not defined",
    diagnostics: [unresolved('SEBlock', "no binding of 'SEBlock' in models.common"), unresolved('X', 'import cycle')],
    rule: 'dynamic-name',
    why: "yolov7's models.common: SEBlock bound by nothing resolve can read",
  },
  {
    status: 'failed',
    cls: 'forward-error',
    stage: 'forward',
    type: 'AttributeError',
    message: "'types.SimpleNamespace' object has no attribute '_get_image_size'",
    diagnostics: [
      unresolved(
        '_get_image_size',
        "'_get_image_size' is neither bound in torchvision.transforms.functional nor a submodule of it",
      ),
    ],
    rule: 'dynamic-name',
    why: 'torchvision transforms: a member of F resolve could not bind (the name decides before the namespace rule)',
  },
  {
    status: 'failed',
    cls: 'forward-error',
    stage: 'forward',
    type: 'AttributeError',
    message: "'types.SimpleNamespace' object has no attribute 'interpolate'",
    rule: 'module-namespace',
    why: 'a module object read dynamically, its stand-in namespace without the member',
  },
  {
    status: 'failed',
    cls: 'compile',
    stage: 'import',
    type: 'TypeError',
    message:
      'metaclass conflict: the metaclass of a derived class must be a (non-strict) subclass of the metaclasses of all its bases',
    rule: 'metaclass',
    why: 'a class made by combining metaclasses',
  },
  {
    status: 'not-run',
    cls: 'needs-arguments',
    stage: 'build',
    type: 'KeyError',
    message:
      "'ResNet is not in the mmdet::model registry. Please check whether the value of `ResNet` is correct or it was registered as expected.'",
    rule: 'registry',
    why: "mmdet's MODELS registry, empty in the assembled module: the repository's machinery, not the harness",
  },
  {
    status: 'failed',
    cls: 'sandbox-violation',
    stage: 'build',
    type: 'FileNotFoundError',
    message: "[Errno 2] No such file or directory: 'yolov5s.yaml'",
    rule: 'config-file',
    why: "yolov5's Model reads its yaml config",
  },
  {
    status: 'not-run',
    cls: 'needs-arguments',
    stage: 'build',
    type: 'TypeError',
    message: "RPNHead.__init__() missing 1 required positional argument: 'cfg'",
    missing: ['cfg'],
    rule: 'config-argument',
    why: "detectron2's heads take the repository's config node",
  },
  {
    status: 'failed',
    cls: 'missing-module',
    stage: 'import',
    type: 'ModuleNotFoundError',
    message: "No module named 'torch._six'",
    rule: 'missing-module',
    why: 'a submodule the installed torch no longer has',
  },
  {
    status: 'failed',
    cls: 'unresolved-name',
    stage: 'import',
    type: 'AttributeError',
    message: "module 'mmcv__mmcv_cnn_bricks_activation__SiLU' has no attribute 'SiLU'",
    rule: 'unresolved-name',
    why: 'a name the assembled module lacks, which resolve did not flag',
  },
  {
    status: 'not-run',
    cls: 'needs-arguments',
    stage: 'build',
    type: 'TypeError',
    message: "FasterRCNN.__init__() missing 1 required positional argument: 'backbone'",
    missing: ['backbone'],
    rule: 'not-run',
    why: 'a detector needs its parts: the harness has none',
  },
  {
    status: 'not-run',
    cls: 'timeout',
    stage: 'forward',
    type: null,
    message: 'killed at the deadline during forward without reporting a result',
    rule: 'not-run',
    why: 'a ViT-L on a CPU: the budget',
  },
  {
    status: 'failed',
    cls: 'sandbox-violation',
    stage: 'build',
    type: 'nnblocks_runner.containment.Violation',
    message: '[Errno 1] sandbox: process refused (subprocess.Popen curl)',
    rule: 'sandbox',
    why: 'it tried to start a process',
  },
  {
    status: 'failed',
    cls: 'crashed',
    stage: null,
    type: null,
    message: 'the process died (signal 11) without reporting a result',
    rule: 'sandbox',
    why: 'a segfault',
  },
  {
    status: 'failed',
    cls: 'compile',
    stage: 'import',
    type: 'ZeroDivisionError',
    message: 'division by zero',
    rule: 'import-other',
    why: "its module body raises: a failure by the paper's criterion, in none of its groups",
  },
  {
    status: 'failed',
    cls: 'timeout',
    stage: 'import',
    type: null,
    message: 'killed at the deadline during import without reporting a result',
    rule: 'import-other',
    why: 'a module that hangs on import',
  },
  {
    status: 'failed',
    cls: 'forward-error',
    stage: 'forward',
    type: 'RuntimeError',
    message: 'running_mean should contain 4 elements not 8',
    rule: 'after-import',
    why: 'it imports and builds; its forward raises on an input it accepts',
  },
  {
    status: 'failed',
    cls: 'forward-error',
    stage: 'forward',
    type: 'AttributeError',
    message: "module 'torch.nn' has no attribute 'Hardswish2'",
    rule: 'after-import',
    why: 'api-missing: it calls something the installed library lacks',
  },
];

describe('blocks that did not pass, grouped as the paper groups its failures', () => {
  it.each(cases.map((c) => [c.rule, c.message, c] as const))('%s: %s', (_rule, _message, c) => {
    const facts: CauseFacts = {
      status: c.status,
      failureClass: c.cls,
      reason: {
        stage: c.stage,
        exceptionType: c.type,
        message: c.message,
        ...(c.missing ? { missing: c.missing } : {}),
      },
      diagnostics: c.diagnostics ?? [],
    };
    expect(causeRule(facts).id, c.why).toBe(c.rule);
  });

  it('has a case for every rule, and every rule names a group', () => {
    const ids = new Set(CAUSE_GROUPS.map((g) => g.id));
    for (const r of CAUSE_RULES) {
      expect(ids.has(r.group), r.id).toBe(true);
      expect(
        cases.some((c) => c.rule === r.id),
        `no case for ${r.id}`,
      ).toBe(true);
    }
    expect(new Set(CAUSE_RULES.map((r) => r.id)).size).toBe(CAUSE_RULES.length);
  });

  it("a name an unrelated diagnostic names does not decide: only the failure's own name", () => {
    const facts: CauseFacts = {
      status: 'failed',
      failureClass: 'forward-error',
      reason: { stage: 'forward', exceptionType: 'RuntimeError', message: "expected 'float' got 'int'" },
      diagnostics: [unresolved('Other', "no binding of 'Other' in m")],
    };
    expect(causeRule(facts).id).toBe('after-import');
    // TYPE_CHECKING-only names fail upstream too: not dynamic.
    const typeChecking: CauseFacts = {
      status: 'failed',
      failureClass: 'unresolved-name',
      reason: { stage: 'forward', exceptionType: 'NameError', message: "name 'Boxes' is not defined" },
      diagnostics: [unresolved('Boxes', "'Boxes' is bound only under TYPE_CHECKING in pkg.boxes")],
    };
    expect(causeRule(typeChecking).id).toBe('unresolved-name');
  });

  it("the paper's data names its four groups, 348 failures of 1,289", () => {
    const paper = paperFailureAnalysis();
    expect(paper.causes.map((c) => c.group)).toEqual(CAUSE_GROUPS.filter((g) => g.paper).map((g) => g.id));
    expect(paper.causes.map((c) => c.count)).toEqual([87, 70, 52, 139]);
    expect(paper.causes.reduce((a, c) => a + c.count, 0)).toBe(paper.failures);
    expect([paper.blocks, paper.failures]).toEqual([1289, 348]);
  });
});

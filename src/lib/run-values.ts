// Values a sandboxed run reported (validation records, compositions from the built module), made ready to show as
// text. They are as hostile as the code that ran: the schema and the catalog step already refuse or drop what breaks
// the rules in pipeline/contract/rules.ts; these checks hold if either were bypassed. Rendered by Astro as escaped
// text, never HTML.
import type { Composition } from '../../pipeline/contract/block-facts.ts';
import {
  isBoxesInput,
  isInputKeys,
  isInputLevels,
  isInputLiteral,
  type InputSpec,
} from '../../pipeline/contract/inputs.ts';
import type { ValidationRecipe } from '../../pipeline/contract/recipe.ts';
import {
  capText,
  CONFIG_PATH_PATTERN,
  DEVICE_PATTERN,
  isDistributionName,
  isKwargName,
  isMacs,
  isModuleName,
  isRefTarget,
  isShape,
  isTorchDtype,
  isTypeName,
  TORCH_VERSION_PATTERN,
} from '../../pipeline/contract/rules.ts';
import type { BlockedBy } from '../../pipeline/contract/validation.ts';
import { RUN_LIMITS } from '../../pipeline/contract/vocabulary.ts';
import { compact, count, macs, shape } from './format.ts';
import { pyLiteral } from './py-literal.ts';
import { literalSource } from './replay.ts';

const CONFIG_PATH = new RegExp(CONFIG_PATH_PATTERN);

/** Free text from a run (failure detail, device, versions), capped; 64 characters unless said otherwise. */
export const runText = (value: unknown, max = 64): string => capText(String(value), max);

/** The failure detail as shown: at most RUN_LIMITS.detailChars characters. */
export const detailText = (value: unknown): string => runText(value, RUN_LIMITS.detailChars);

const DEVICE = new RegExp(DEVICE_PATTERN);
const TORCH_VERSION = new RegExp(TORCH_VERSION_PATTERN);

/** `cuda:0, torch 2.6.0`; a device or version that is not one is shown as unreadable, not as given. */
export const runtimeText = (device: unknown, torchVersion: unknown): string =>
  `${typeof device === 'string' && DEVICE.test(device) ? device : 'unreadable device'}, torch ${
    typeof torchVersion === 'string' && TORCH_VERSION.test(torchVersion) ? torchVersion : 'unreadable version'
  }`;

/** `[2, 64, 14, 14] float32`, or a placeholder when the shape or dtype is not one. */
export const tensorText = (t: { shape: unknown; dtype: unknown }): string =>
  isShape(t.shape) && isTorchDtype(t.dtype) ? `${shape(t.shape)} ${t.dtype}` : 'unreadable shape or dtype';

/**
 * A forward input as text: the tensor, and what it is beyond one: `2 × [2, 3, 32, 32] float32` (a list), `{low,
 * high}: ...` (a dict), `[8, 5] float32 boxes in 32×32`, `levels [2, 16, 32, 32], [2, 32, 16, 16] float32` (a
 * pyramid), or a literal as Python (`['0', '1']`). Unreadable values say so.
 */
export function inputText(i: InputSpec): string {
  if (i.value !== undefined) return isInputLiteral(i.value) ? literalSource(i.value) : 'unreadable value';
  if (i.levels !== undefined)
    return isInputLevels(i.levels, i.shape) && isTorchDtype(i.dtype)
      ? `levels ${i.levels.map(shape).join(', ')} ${i.dtype}`
      : 'unreadable levels';
  let text = tensorText(i);
  if (i.boxes !== undefined)
    text += isBoxesInput(i.shape, i.boxes) ? ` boxes in ${i.boxes}×${i.boxes}` : ' (unreadable boxes)';
  if (i.keys !== undefined) return isInputKeys(i.keys) ? `{${i.keys.join(', ')}}: ${text}` : 'unreadable keys';
  if (i.list === undefined) return text;
  return Number.isSafeInteger(i.list) && i.list >= 1 && i.list <= RUN_LIMITS.recipeItems
    ? `${i.list} × ${text}`
    : 'unreadable list';
}

/** Layers whose type is a dotted Python name; anything else is left out. */
export const shownLayers = (c: Composition): Composition['layers'] => c.layers.filter((l) => isTypeName(l.type));

/** What a blocked block needs, as shown: only distribution and module names that are names (the schema's rule). */
export const shownNeeds = (needs: BlockedBy[] | undefined): BlockedBy[] =>
  (needs ?? []).filter((n) => isDistributionName(n.distribution) && isModuleName(n.module));

/**
 * Output shapes at the builders' configurations, one line per distinct `input → outputs`, with the builders that
 * give it: `[1, 3, 224, 224] → [1, 1000]` (resnet18, resnet50). Entries whose builder or shapes are not one are left
 * out.
 */
export function canonicalOutputs(
  canonical: { builder: unknown; params?: unknown; input?: unknown; outputs?: unknown }[] | undefined,
): { io: string; builders: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const c of canonical ?? []) {
    const outs = c.outputs;
    if (!isKwargName(c.builder) || !isShape(c.input) || !Array.isArray(outs) || !outs.length || !outs.every(isShape))
      continue;
    const io = `${shape(c.input)} → ${outs.map((o) => shape(o)).join(', ')}`;
    groups.set(io, [...(groups.get(io) ?? []), c.builder]);
  }
  return [...groups].map(([io, builders]) => ({ io, builders }));
}

/** A count of elements: a non-negative safe integer. */
const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** Where a figure was measured: `224 px` for one square image of 1 or 3 channels, else the input's shape. */
export function inputAt(input: number[]): string {
  const [n, c, h, w] = input;
  return input.length === 4 && n === 1 && (c === 1 || c === 3) && h === w ? `${h} px` : shape(input);
}

/** One builder configuration as the block page and the method table show it. */
export interface CanonicalFigureText {
  builder: string;
  /** The config file the configuration was read from (`configs/_base_/models/resnet50.py`), when one was. */
  config?: string;
  /** `25.56M`, and the exact count for its title. */
  params: string;
  paramsExact: string;
  /** `4.1 GMACs at 224 px`, and what was counted for its title; absent when the figure has no MACs. */
  macs?: string;
  macsTitle?: string;
}

/**
 * The figures at the builders' configurations: `resnet50`: 25.56M parameters, 4.1 GMACs at 224 px. An entry whose
 * builder or parameter count is not one is left out; MACs are shown only with the input they were counted at.
 */
export function canonicalFigures(
  canonical:
    | { builder: unknown; config?: unknown; params?: unknown; input?: unknown; outputs?: unknown; macs?: unknown }[]
    | undefined,
): CanonicalFigureText[] {
  const out: CanonicalFigureText[] = [];
  for (const c of canonical ?? []) {
    if (!isKwargName(c.builder) || !isCount(c.params)) continue;
    const fig: CanonicalFigureText = { builder: c.builder, params: compact(c.params), paramsExact: count(c.params) };
    if (typeof c.config === 'string' && CONFIG_PATH.test(c.config)) fig.config = c.config;
    if (isMacs(c.macs) && isShape(c.input)) {
      fig.macs = `${macs(c.macs)} at ${inputAt(c.input)}`;
      fig.macsTitle = `${count(c.macs)} multiply-accumulates (MACs, half the FLOPs) of one forward at ${shape(
        c.input,
      )}: matrix products and convolutions, as torch.utils.flop_counter counts them`;
    }
    out.push(fig);
  }
  return out;
}

/** A parameter count as a reader should read it: measured at the configuration validation built, not canonical. */
export const paramsText = (n: unknown): string | null =>
  isCount(n) ? `${count(n)} parameters at the test configuration` : null;

/** A recipe's kwargs (`dim=64`, `norm_layer=torch.nn.LayerNorm`) and inputs as text; unreadable values say so. */
export function recipeText(recipe: ValidationRecipe): { kwargs: string[]; inputs: string[] } {
  const refs = new Set(Array.isArray(recipe.refs) ? recipe.refs : []);
  const kwargs = (Array.isArray(recipe.kwargs) ? recipe.kwargs : []).slice(0, RUN_LIMITS.recipeItems).map((k) => {
    if (!isKwargName(k?.name)) return 'unreadable argument';
    const value = refs.has(k.name) && isRefTarget(k.value) ? k.value : pyLiteral(k.value);
    return `${k.name}=${value ?? 'unreadable value'}`;
  });
  const inputs = (Array.isArray(recipe.inputs) ? recipe.inputs : []).slice(0, RUN_LIMITS.recipeItems).map(inputText);
  return { kwargs, inputs };
}

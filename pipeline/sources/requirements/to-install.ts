// Which declared requirements nnblocks itself should install for a source: not the torch family (the validation
// environment pins its own torch, and a source's `torch>=1.7` must never replace it, nor pull CUDA wheels), and not
// what the corpus provides (mmcv declares `mmengine>=0.3.0`; when mmengine is a source of the corpus, its checkout
// is what blocks import, not a PyPI copy).
import { normalizeName } from './pep508.ts';
import type { DeclaredRequirement } from './types.ts';

/** PyTorch and the distributions its wheels bring; `pytorch` is PyPI's placeholder that refuses to install. */
const TORCH_FAMILY = new Set([
  'torch',
  'torchvision',
  'torchaudio',
  'triton',
  'pytorch-triton',
  'pytorch',
  'pytorch-triton-rocm',
]);

export interface DroppedRequirement {
  requirement: DeclaredRequirement;
  reason: 'torch-family' | 'provided-by-corpus';
  /** What decided it: `torch`, `nvidia-*`, or the provided name that matched. */
  detail: string;
}

/**
 * Splits `declared` into what to install and what not, with the reason. `provided` are names the corpus itself
 * provides — distribution names (`mmengine`, `segment-anything`) or top-level packages (`segment_anything`); both
 * are compared PEP 503-normalised with the requirement's name. A top-level package named unlike its distribution
 * (`mmseg` of `mmsegmentation`) matches only when the caller passes the distribution name too.
 */
export function requirementsToInstall(
  declared: DeclaredRequirement[],
  provided: Iterable<string> = [],
): { kept: DeclaredRequirement[]; dropped: DroppedRequirement[] } {
  const corpus = new Map<string, string>();
  for (const p of provided) corpus.set(normalizeName(p), p);
  const kept: DeclaredRequirement[] = [];
  const dropped: DroppedRequirement[] = [];
  for (const requirement of declared) {
    const name = normalizeName(requirement.name);
    if (TORCH_FAMILY.has(name)) dropped.push({ requirement, reason: 'torch-family', detail: name });
    else if (name.startsWith('nvidia-')) dropped.push({ requirement, reason: 'torch-family', detail: 'nvidia-*' });
    else if (corpus.has(name)) dropped.push({ requirement, reason: 'provided-by-corpus', detail: corpus.get(name)! });
    else kept.push(requirement);
  }
  return { kept, dropped };
}

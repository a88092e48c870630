// A refused package is not installed, as far as a probe can tell (containment.py, Blocker.find_installed;
// docs/validate.md, "What a block may import"): `importlib.util.find_spec(name)` of a blocked package returns None,
// as it would where only the extracted module is, instead of raising through the finder that refuses the import;
// the import itself still fails, naming the package. transformers probes `find_spec("timm")` at import, and an
// mmpretrain block that never imports timm failed on the probe.
import { describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import { baseOptions, byName, fixtureItems, reportingBlock } from './helpers.ts';

describe('a probe of a refused package', () => {
  it('finds nothing, another package is still found, and importing the refused one still fails', async () => {
    const { items } = fixtureItems({
      probes: {
        blocked: ['upstream_pkg'],
        code: reportingBlock(`
import importlib.util

FOUND = 0
if importlib.util.find_spec("upstream_pkg") is None and importlib.util.find_spec("upstream_pkg.sub") is None:
    FOUND += 1
if importlib.util.find_spec("json") is not None:
    FOUND += 2
try:
    import upstream_pkg
except ModuleNotFoundError as exc:
    FOUND += 4 * ("blocked" in str(exc))
`),
      },
    });
    const rec = byName(await validateBlocks(items, baseOptions({ workers: 1 }))).probes;
    expect(rec.status, rec.failureDetail ?? '').toBe('passed');
    expect(rec.outputs[0].checksum).toBe(7);
  });
});

// The sources and licenses an assembled block draws its code from, and the rule that flags a licence mix worth a
// warning (docs/catalog.md, "Dependencies"). Data only: the catalog records the flag, the site shows it.
import type { DependencySource, LicenseFlag } from '../contract/block-facts.ts';

/** Strong and weak copyleft: code under them carries its terms into the module it is copied into. */
const COPYLEFT = /^(?:A?GPL|LGPL|MPL|EPL|EUPL|OSL|CDDL)-|^CC-BY-SA-/;
/** Licenses that forbid commercial use (CC-BY-NC-SA too: the stronger restriction is the one shown). */
const NON_COMMERCIAL = /^CC-BY-NC-/;

/**
 * Why code under `license` in a block whose own source is under `own` deserves a warning, or undefined:
 *   - `non-commercial`: CC-BY-NC code (mae) in a block under any other license;
 *   - `copyleft`: GPL, AGPL, LGPL, MPL, CC-BY-SA (and other copyleft) code in a block under any other license —
 *     the assembled module as a whole falls under the copyleft terms (AGPL-3.0 yolov5 code in an MIT block);
 *   - `unknown`: no license was found for the source (NOASSERTION), so nobody can tell what applies.
 * The same license as the block's own never flags; permissive code (MIT, BSD, Apache-2.0...) never flags: the
 * provenance comment above each definition carries its attribution.
 */
export function licenseFlag(license: string, own: string): LicenseFlag | undefined {
  if (license === own) return undefined;
  if (license === 'NOASSERTION') return 'unknown';
  if (NON_COMMERCIAL.test(license)) return 'non-commercial';
  if (COPYLEFT.test(license)) return 'copyleft';
  return undefined;
}

/**
 * Every source whose code the block holds — its own first, then the others by id — each with its SPDX license
 * (`NOASSERTION` when unknown) and, for another source, the flag `licenseFlag` gives.
 */
export function dependencySources(
  own: string,
  drawnFrom: Iterable<string>,
  licenseOf: (sourceId: string) => string,
): DependencySource[] {
  const ownLicense = licenseOf(own);
  const others = [...new Set(drawnFrom)].filter((s) => s !== own).sort();
  return [
    { id: own, license: ownLicense },
    ...others.map((id) => {
      const license = licenseOf(id);
      const flag = licenseFlag(license, ownLicense);
      return flag ? { id, license, flag } : { id, license };
    }),
  ];
}

// Code under `if TYPE_CHECKING:`, which is False at run time: type checkers read it, the running module never does.
// A closure keeps such a block when an annotation names what it binds, but follows nothing in its body: its reads
// are never needed and its imports stay imports (made absolute), for type checkers only.
//   if TYPE_CHECKING:
//       from .boxes import Boxes     # emitted as `from pkg.boxes import Boxes`; pkg.boxes is not inlined
//   def crop(b: Boxes) -> Boxes: ... # with `from __future__ import annotations`: never evaluated
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { IndexedModule } from '../index/types.ts';
import type { TopStatement } from '../parse/facts.ts';

/** Whether byte `at` of the statement lies in the body of an `if TYPE_CHECKING:`, which never runs. */
export function typeCheckingOnly(facts: TopStatement, at: number): boolean {
  return !!facts.typeChecking?.some((b) => at >= b.startByte && at < b.endByte);
}

/**
 * A name bound only under `if TYPE_CHECKING:` (in `where`) read by `mod` other than as a type, by code that runs:
 * upstream raises NameError there too.
 *   if TYPE_CHECKING: from .boxes import Boxes
 *   def forward(self, x): return cast(Boxes, x)      # evaluates Boxes when forward runs
 */
export function readAtRunTime(mod: IndexedModule, name: string, where: IndexedModule): Diagnostic {
  return {
    code: 'unresolved-name',
    severity: 'warning',
    stage: 'resolve',
    source: mod.sourceId,
    path: mod.path,
    message: `'${name}' is bound only under TYPE_CHECKING in ${where.module ?? where.path} but read at run time`,
    hint: 'TYPE_CHECKING is False at run time: the code that reads it raises NameError upstream too',
  };
}

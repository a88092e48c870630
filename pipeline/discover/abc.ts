// Python's abstract base classes: a class whose metaclass is ABCMeta (written `metaclass=ABCMeta`, or inherited
// from a base such as `abc.ABC` or OpenMMLab's BaseModule) and whose MRO leaves an `@abstractmethod` unimplemented
// can't be instantiated: `BaseDetector()` raises "Can't instantiate abstract class ... with abstract methods loss,
// predict". Such a block has nothing to validate, whatever its forward, so discovery flags it abstract like a
// forward that only raises NotImplementedError.
//   class BaseDetector(BaseModel, metaclass=ABCMeta):
//       def forward(self, x): return self._forward(x)
//       @abstractmethod
//       def _forward(self, x): ...           # BaseDetector is abstract
//   class SingleStage(BaseDetector):
//       def _forward(self, x): return x      # concrete: the first definition in the MRO is not abstract
// A decorated method is abstract only under ABCMeta: on a plain Module, `@abstractmethod` is not enforced.
import type { ClassFact } from '../parse/facts.ts';
import { ABSTRACT_DECORATOR } from '../parse/walk-defs.ts';
const ABC_META = /(?:^|\.)ABCMeta$/;

/** What one class of an MRO defines itself: each method or class attribute name, and whether it is abstract. */
export type Defines = ReadonlyArray<readonly [name: string, abstract: boolean]>;

export function definesOf(cls: ClassFact): Defines {
  const out: [string, boolean][] = cls.attributes.map((a) => [a, false]);
  for (const m of cls.methods) out.push([m.name, m.decorators.some((d) => ABSTRACT_DECORATOR.test(d.trim()))]);
  // A later definition of the same name in the body wins, as at class creation.
  return [...new Map(out)];
}

/** `class A(..., metaclass=ABCMeta)`: the class itself names ABCMeta. */
export function namesAbcMeta(cls: ClassFact): boolean {
  return cls.keywords.some((k) => k.name === 'metaclass' && ABC_META.test(k.text.replace(/\s+/g, '')));
}

/** The names whose first definition along `mro` (the class first) is abstract, sorted. */
export function unimplemented(mro: ReadonlyArray<{ defines: Defines }>): string[] {
  const first = new Map<string, boolean>();
  for (const e of mro) for (const [name, abstract] of e.defines) if (!first.has(name)) first.set(name, abstract);
  return [...first]
    .filter(([, abstract]) => abstract)
    .map(([name]) => name)
    .sort();
}

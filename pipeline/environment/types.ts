// Records of the environment stage: what is to be installed and why, what could not be, and the resolved
// environment every later stage runs Python with. See docs/config.md ("environment").
import type { EnvironmentReport } from '../contract/build-info.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';

/** One requirement the layer installs, merged over everyone who asked for that distribution. */
export interface RequirementEntry {
  /** PEP 503-normalised distribution name. */
  name: string;
  /** The PEP 508 strings asked for (`numpy>=1.20`, `numpy<2`): pip gets them all and intersects them. */
  specs: string[];
  /** Who asked: `config`, or source ids. */
  from: string[];
}

export interface MissingRequirement {
  name: string;
  /** The specs, joined with `; `. */
  spec: string;
  from: string[];
  /** pip's reason, or why nothing was tried (offline, no sandbox). */
  reason: string;
}

/** Interpreter facts for probes that run on the host: never with a layer's site processing on. */
export interface HostPython {
  path: string;
  /**
   * When set, the probe runs with `-S` (no site: no `.pth` file of the layer runs on the host) and these folders
   * are appended to sys.path after the standard library, so no installed module can shadow one the probe uses.
   */
  sites?: string[];
}

/** The resolved validation environment. */
export interface Environment {
  /** The interpreter validation runs (inside the sandbox): the layer's, else the base's. */
  python: string;
  /** Folders the sandbox must show besides the interpreter's prefix (the base under a layer). */
  roots: string[];
  /**
   * The base's site folders: the runtime (torch, torchvision) whose packages nnblocks or the user installed, never
   * a source's declared requirements. Originals there are imported once by the validate workers, like /usr.
   */
  runtime: string[];
  /**
   * Every site folder validation imports from, runtime first, then the layer's: the runner appends them itself,
   * started with `-S`, so no `.pth` file of the layer runs in a worker.
   */
  sites: string[];
  /** The interpreter for probes on the host (python sources, requirement versions). */
  host: HostPython;
  /** Identifies python, torch and the installed set: part of the validation cache key. */
  key: string;
  report: EnvironmentReport;
}

export type EnvironmentResult =
  { ok: true; environment: Environment; diagnostics: Diagnostic[] } | { ok: false; diagnostics: Diagnostic[] };

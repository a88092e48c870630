// Public types of the dedup stage: its input items, its parameters (stored with every result) and its result.
import type { Diagnostic } from '../contract/diagnostics.ts';

export interface DedupItem {
  /** `<sourceId>:<module>.<qualname>`; unique across the input. */
  id: string;
  sourceId: string;
  /** Path of the block's file inside its source. */
  path: string;
  /** Source priority: 1 before 2 when choosing a cluster's canonical member. */
  priority: 1 | 2;
  /** Whether the block passed validation. */
  validated: boolean;
  /** The block's own code: its class plus the internal definitions it pulled in, imports excluded. */
  code: string;
  /** The module tree validation built (see `ModuleTreeNode`); null or absent when it did not build. */
  moduleTree?: unknown | null;
}

/**
 * The module tree the validate stage records for a block that built, exactly the shape `archHash` reads:
 * `{ type, params: [{ name, shape }], children: [{ name, type, params, children }] }`.
 */
export interface ModuleTreeNode {
  /** `cls.__module__ + '.' + cls.__qualname__`, e.g. `torch.nn.modules.conv.Conv2d`. */
  type: string;
  /** Parameters registered directly on this module (`named_parameters(recurse=False)`), in order. */
  params: { name: string; shape: number[] }[];
  /** Direct submodules (`named_children()`), in registration order. */
  children: ModuleTreeChild[];
}
export interface ModuleTreeChild extends ModuleTreeNode {
  name: string;
}

export interface DedupParams {
  /** Seeds the MinHash permutations (and nothing else: every other hash is content-derived). */
  seed: number;
  /** Tokens per lexical shingle. */
  shingleSize: number;
  /**
   * MinHash signature length k, shared by the lexical and structural levels: k permutations under
   * `k-permutations`, k bins under `one-permutation` (densified one-permutation hashing, the default).
   */
  permutations: number;
  minhashScheme: 'one-permutation' | 'k-permutations';
  /** LSH bands x rows (bands * rows <= permutations); chosen by `chooseBands` unless given. */
  bands: number;
  rows: number;
  /** Largest chance of LSH missing a pair whose similarity equals the (lower) threshold; drives bands/rows. */
  maxMissRate: number;
  /** Exact Jaccard of shingle sets at or above which two blocks are lexical near-duplicates. */
  lexicalThreshold: number;
  /** Multiset Jaccard of hashed subtrees at or above which two blocks are structural near-duplicates. */
  structuralThreshold: number;
  /** Weisfeiler-Lehman iterations whose labels (hashed subtrees of that depth) form the structural bag. */
  subtreeDepths: number[];
  /** Identifiers whose attribute chains stay in the lexical stream (`nn.Conv2d`, `F.relu`, `torch.cat`). */
  apiRoots: string[];
  /** Other names kept as themselves in the lexical stream (`self`, `super`, builtins). */
  keptNames: string[];
  /**
   * Candidates whose MinHash estimate lies more than this many standard errors below the threshold are dropped
   * before the exact Jaccard (0 disables the shortcut; then every LSH candidate gets an exact Jaccard).
   */
  prefilterSigmas: number;
  /** Lexical nearest neighbours listed per block. */
  nearestCount: number;
  /** LSH buckets larger than this skip pairs already in one cluster (clusters unchanged, neighbours partial). */
  bigBucket: number;
}

export interface Neighbour {
  id: string;
  /** Exact Jaccard of the two blocks' shingle sets, rounded to 4 decimals. */
  similarity: number;
}

export interface StructuralSummary {
  /** Named syntax nodes (comments and docstrings excluded). */
  nodes: number;
  /** Subtree hashes in the bag, with repeats. */
  subtrees: number;
  /** Distinct subtree hashes. */
  distinct: number;
  /** 32-bit digest of the bag, hex: equal bags, equal digest. */
  digest: string;
}

export interface BlockDedup {
  id: string;
  sourceId: string;
  /** SHA-256 of the normalized form (hex). */
  exactHash: string;
  /** Canonical member of the block's group at each level (its own id when it is the canonical member). */
  exactGroup: string;
  lexicalCluster: string;
  /** Closest blocks by shingle-set Jaccard among LSH candidates, best first (ties by id). */
  nearest: Neighbour[];
  structuralCluster: string;
  structuralFingerprint: StructuralSummary;
  /** SHA-256 of the canonical module tree; null when the block has no (well-formed) tree. */
  archHash: string | null;
  architectureGroup: string | null;
  /** Canonical at each level, i.e. kept when de-duplicating at that level. `architecture` is null without a tree. */
  unique: { exact: boolean; lexical: boolean; structural: boolean; architecture: boolean | null };
}

export interface Cluster {
  canonical: string;
  /** All members including the canonical one, in canonical order (the canonical member first). */
  members: string[];
}

/** One row of the corpus report, in the layout of NN-RAG's table 4. */
export interface ReportRow {
  /** A source id, or `all`. */
  source: string;
  recordsIn: number;
  removedExact: number;
  removedLexical: number;
  removedStructural: number;
  uniqueOut: number;
  /** uniqueOut / recordsIn, rounded to 4 decimals (0 when there are no records). */
  uniqueShare: number;
  validatedIn: number;
  /** Validated blocks that are structurally unique. */
  validatedUniqueOut: number;
  /** Blocks with a module tree, and distinct architectures among them (canonical members). */
  withArchitecture: number;
  uniqueArchitectures: number;
}

export interface DedupResult {
  /** Every parameter, resolved (bands and rows included), so the result can be reproduced. */
  params: DedupParams;
  /** LSH diagnostics for the chosen bands/rows: the S-curve midpoint and the chance of catching a pair at the threshold. */
  lsh: { sCurveThreshold: number; recallAtThreshold: number };
  /** Per block, sorted by id. */
  blocks: BlockDedup[];
  /** Clusters with at least two members at each level, sorted by canonical id. */
  clusters: { exact: Cluster[]; lexical: Cluster[]; structural: Cluster[]; architecture: Cluster[] };
  /** Overall row first, then one row per source sorted by source id. */
  report: ReportRow[];
  /** Problems in the input code (syntax errors) or trees (malformed), as data. */
  diagnostics: Diagnostic[];
}

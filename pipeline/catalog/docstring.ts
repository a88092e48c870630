// A definition's docstring, split into what it says the definition *is* and what it says about its parameters, so
// that a paper named in the first can count as the block's origin and one named in the second as a mention
// (papers.ts). Read from the text of one class or function at spec time, like the papers themselves; nothing of it
// is published. Docstring conventions handled, each with its parameter section:
//   Google    """SE block from <paper>.\n\n    Args:\n        channels: ... see <other paper>"""
//   NumPy     """...\n\n    Parameters\n    ----------\n    channels : int\n        ... see <other paper>"""
//   reST      """...\n\n    :param channels: ... see <other paper>"""
import type { SyntaxNode } from 'tree-sitter';
import { treeSitterParser } from '../util/tree-sitter.ts';

/** A docstring and where it sits in the text it was read from (JavaScript string offsets). */
export interface Docstring {
  /** The literal's contents, quotes and prefix removed, escapes left as written. */
  text: string;
  /** The whole literal (`r"""..."""`) in the definition's text, so a caller can cut it out. */
  start: number;
  end: number;
}

/**
 * The docstring of the class or function whose definition `text` holds (decorators allowed, the first definition
 * in it), or null when its body does not open with a string. Comments before the string do not count as
 * statements: `class A:\n    # note\n    """Doc."""` has the docstring `Doc.`.
 */
export function docstringOf(text: string): Docstring | null {
  if (!text.trim()) return null;
  const root = treeSitterParser().parse(text).rootNode;
  let def: SyntaxNode | null = root.namedChildren.find((n) => n.type !== 'comment') ?? null;
  if (def?.type === 'decorated_definition') def = def.childForFieldName('definition');
  if (!def || (def.type !== 'class_definition' && def.type !== 'function_definition')) return null;
  const first = def.childForFieldName('body')?.namedChildren.find((n) => n.type !== 'comment');
  const literal = first?.type === 'expression_statement' ? first.namedChildren[0] : undefined;
  if (!literal || literal.type !== 'string') return null;
  const m = /^[rRuU]{0,2}("""|'''|"|')([\s\S]*)\1$/.exec(literal.text);
  if (!m) return null; // a bytes or f-string literal is no docstring
  // node-tree-sitter reads a JavaScript string: its indices count UTF-16 units, as String.prototype.slice does.
  return { text: m[2], start: literal.startIndex, end: literal.endIndex };
}

/** Google-style headers of sections that document parameters or attributes: `Args:`, `Keyword Arguments:`. */
const PARAM_SECTION =
  /^(args|arguments|parameters|params|kwargs|keyword args|keyword arguments|other parameters|attributes|inputs)$/i;
/** Any Google- or NumPy-style section header word (a parameter section ends at the next one). */
const ANY_SECTION =
  /^(args|arguments|parameters|params|kwargs|keyword args|keyword arguments|other parameters|attributes|inputs|outputs|shape|returns?|yields?|raises|examples?|notes?|references?|see also|warnings?|todo|methods)$/i;
/** A reST field that documents a parameter or attribute: `:param x:`, `:type x:`, `:ivar x:`, `:keyword x:`. */
const REST_PARAM = /^:(param|parameter|arg|argument|key|keyword|type|ivar|cvar|var)\b[^:]*:/;

const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * The docstring's description — its text less the sections that document parameters and attributes — and those
 * sections. A Google section runs to the next line indented no deeper than its header; a NumPy section (a header
 * underlined with dashes) to the next header; a reST field to the next line indented no deeper than it.
 */
export function splitDocstring(doc: string): { description: string; parameters: string } {
  const lines = doc.split(/\r\n|\r|\n/);
  const description: string[] = [];
  const parameters: string[] = [];
  // The indentation a parameter section's lines must exceed (Google, reST), or 'numpy' until the next header.
  let within: number | 'numpy' | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const word = line.trim().replace(/:$/, '');
    const underlined = /^\s*-{3,}\s*$/.test(lines[i + 1] ?? '');
    const googleHeader = /:\s*$/.test(line) && ANY_SECTION.test(word);
    const numpyHeader = underlined && ANY_SECTION.test(word);
    if (within !== null && line.trim()) {
      const ended =
        within === 'numpy' ? numpyHeader || googleHeader : indentOf(line) <= within && !/^\s*-{3,}\s*$/.test(line);
      if (ended) within = null;
    }
    if (within === null && line.trim()) {
      if ((googleHeader || numpyHeader) && PARAM_SECTION.test(word)) within = numpyHeader ? 'numpy' : indentOf(line);
      else if (REST_PARAM.test(line.trim())) within = indentOf(line);
    }
    (within === null ? description : parameters).push(line);
  }
  return { description: description.join('\n'), parameters: parameters.join('\n') };
}
